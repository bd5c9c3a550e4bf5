import type { EndpointFaults, FaultEndpoint } from '../providers/faults';
import { createPrng } from '../util/prng';

/** What a scheduled fault does; the runner maps each kind to one action. */
export type FaultKind =
  'kill-worker' | 'kill-bridge' | 'provider-faults' | 'kafka-restart' | 'postgres-restart';

export interface ScheduledFault {
  /** Ms after the run's start. */
  atMs: number;
  kind: FaultKind;
  /** Worker index for kill-worker; the provider endpoint for provider-faults. */
  target: string;
  /** How long the fault lasts (dead time before restart, or the provider fault window). */
  forMs: number;
  /** Provider fault settings while the window is open. */
  faults?: Partial<EndpointFaults>;
}

export const WORKER_COUNT = 2;

/**
 * The seeded fault schedule of a chaos run: every fault class once or more, at moments drawn
 * from the seed, so a failing seed re-runs with the same faults at the same offsets. Kafka
 * and Postgres restarts sit in separate thirds so one does not mask the other.
 */
export function buildSchedule(seed: number, durationMs: number): ScheduledFault[] {
  const rnd = createPrng(seed ^ 0x5eed);
  const at = (from: number, to: number) => Math.round(durationMs * (from + rnd() * (to - from)));
  const span = (minMs: number, maxMs: number) => Math.round(minMs + rnd() * (maxMs - minMs));
  const endpoints: FaultEndpoint[] = ['charges', 'emails', 'refunds'];
  const schedule: ScheduledFault[] = [];
  for (let w = 0; w < WORKER_COUNT; w++) {
    schedule.push({
      atMs: at(0.1 + w * 0.3, 0.3 + w * 0.3),
      kind: 'kill-worker',
      target: `worker-${w + 1}`,
      forMs: span(1000, 5000),
    });
  }
  schedule.push({
    atMs: at(0.15, 0.5),
    kind: 'kill-bridge',
    target: 'bridge',
    forMs: span(1000, 5000),
  });
  // One window per fault type, each on an endpoint drawn from the seed.
  const windows: Partial<EndpointFaults>[] = [
    { failBeforeCommitRate: 0.3 + rnd() * 0.3 },
    { timeoutAfterCommitRate: 0.2 + rnd() * 0.3 },
    { latencyMs: span(200, 1500) },
  ];
  // Rotating from a seeded offset puts the three fault types on three different endpoints.
  const offset = Math.floor(rnd() * endpoints.length);
  windows.forEach((faults, i) => {
    schedule.push({
      atMs: at(0.05, 0.6),
      kind: 'provider-faults',
      target: endpoints[(offset + i) % endpoints.length]!,
      forMs: Math.round(durationMs * (0.08 + rnd() * 0.12)),
      faults,
    });
  });
  schedule.push({ atMs: at(0.2, 0.4), kind: 'kafka-restart', target: 'kafka', forMs: 0 });
  schedule.push({ atMs: at(0.55, 0.7), kind: 'postgres-restart', target: 'postgres', forMs: 0 });
  return schedule.sort((a, b) => a.atMs - b.atMs);
}

/** Duration and settings of a fault, without its time, kind and target. */
export function faultDetail(f: ScheduledFault): string {
  const settings = Object.entries(f.faults ?? {})
    .map(([k, v]) => `${k}=${typeof v === 'number' ? Number(v.toFixed(2)) : v}`)
    .join(' ');
  const lasting = f.forMs > 0 ? `for ${(f.forMs / 1000).toFixed(1)} s` : '';
  return [lasting, settings].filter(Boolean).join(' ');
}

export function describeFault(f: ScheduledFault): string {
  return `t+${(f.atMs / 1000).toFixed(1).padStart(6)} s  ${f.kind.padEnd(16)} ${f.target} ${faultDetail(f)}`.trimEnd();
}
