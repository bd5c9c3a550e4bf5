// The providers of a generated case: every key remembers its effect (idempotent, as a
// provider keyed by Idempotency-Key is), fails as the case's fault plan says, and records
// every attempt with its order among the run's deliveries.
import type { ActivityCall } from '../../../src/workflows/saga-runtime';
import { businessError, outage, permanent, type AttemptInfo } from '../emulator/runtime';
import { DECLINED } from './body';
import { faultOf, randOf, type Case } from './generate';

/** The transient window and interval a generated provider's outage carries (virtual ms). */
export const WINDOW_MS = 60_000;
export const INTERVAL_MS = 1000;

export interface KeyRecord {
  /** Every intent sent under the key (name and item): one, or a key was reused. */
  intents: Set<string>;
  attempts: number;
  applied: boolean;
  /** An operator's retry cleared a permanent fault. */
  cleared: boolean;
  activity: string;
}

/** The result a key's effect answers with (the body branches on `v`). */
export function valueOf(key: string): { v: number } {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
  return { v: h % 7 };
}

/**
 * A case's providers. `window`: the outage window and interval their transient failures carry
 * (default WINDOW_MS and INTERVAL_MS; the differential test runs in real time with shorter ones).
 */
export function createProvider(
  c: Case,
  order: () => number,
  window = { windowMs: WINDOW_MS, intervalMs: INTERVAL_MS },
) {
  const keys = new Map<string, KeyRecord>();
  /** Every attempt of a forward call or an undo, with its place among the deliveries. */
  const attempts: Array<{ key: string; activity: string; order: number }> = [];
  /** Every settlement's `settled`, in order. */
  const settlements: string[] = [];
  let settleAttempts = 0;
  /** How many of the run's settlement attempts meet our database failing over (0 to 40). */
  const settleOutage = randOf(c.seed * 31 + 7)(3) === 0 ? randOf(c.seed * 37 + 11)(40) : 0;

  const answer = (call: ActivityCall, _info: AttemptInfo): unknown => {
    const input = call.input as { key: string; name: string; item?: string; settled?: string };
    if (call.activity === 'claimEntity') return { kind: 'owner', claim: {} };
    if (call.activity === 'settleClaim') {
      // Our database fails over under some settlements: they wait like a provider outage.
      settleAttempts++;
      if (settleAttempts <= settleOutage) throw outage(window.windowMs, window.intervalMs);
      settlements.push(input.settled!);
      return { settled: true };
    }
    const rec: KeyRecord = keys.get(input.key) ?? {
      intents: new Set(),
      attempts: 0,
      applied: false,
      cleared: false,
      activity: call.activity,
    };
    keys.set(input.key, rec);
    rec.intents.add(JSON.stringify([call.activity, input.name, input.item ?? null]));
    rec.attempts++;
    attempts.push({ key: input.key, activity: call.activity, order: order() });
    const apply = () => {
      rec.applied = true;
      return valueOf(input.key);
    };
    const fault = faultOf(c.seed, input.key, call.activity === 'undo');
    switch (fault.f) {
      case 'ok':
        return apply();
      case 'decline':
        throw businessError(DECLINED);
      case 'outage':
        if (rec.attempts <= fault.attempts) throw outage(window.windowMs, window.intervalMs);
        return apply();
      case 'lost':
        apply();
        if (rec.attempts === 1) throw outage(window.windowMs, window.intervalMs);
        return valueOf(input.key);
      case 'permanent':
        if (!rec.cleared) throw permanent();
        return apply();
    }
  };
  return { answer, keys, attempts, settlements };
}

export type Provider = ReturnType<typeof createProvider>;
