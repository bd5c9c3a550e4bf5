import type { EndpointFaults, FaultEndpoint } from '../sandbox/faults';
import { createPrng } from '../../src/util/prng';

/** Faults of the three-broker cluster only, run by harness/chaos/topology-faults.ts. */
export type TopologyFaultKind = 'broker-kill' | 'isr-shortfall';

/** What a scheduled fault does; the runner maps each kind to one action. */
export type FaultKind =
  | 'kill-worker'
  | 'kill-bridge'
  | 'provider-faults'
  | 'provider-outage'
  | 'kafka-restart'
  | 'postgres-restart'
  | 'temporal-restart'
  /**
   * Every memory but the order claims forgets the run's past at once (harness/chaos/time-passes.ts):
   * the ledger reaped, closed runs deleted from Temporal, the providers' keys of settled orders
   * expired; then the bridge reads the source topic again from the beginning.
   */
  | 'time-passes'
  /**
   * Operators cancel running orders and payouts through Temporal itself (one by one, and in a
   * batch job): harness/chaos/temporal-cancel.ts.
   */
  | 'temporal-cancel'
  /**
   * A deploy of changed saga code: every worker stopped and started on a changed copy of src/
   * (harness/chaos/deploy.ts; target `release-<n>`); runs in flight finish on the build they
   * started on.
   */
  | 'deploy'
  /**
   * An operator's rollback: `temporal worker deployment set-current-version` back to the build
   * current before the last deploy, then a worker of the build rolled back from restarts; the
   * rollback must hold (harness/chaos/builds.ts).
   */
  | 'rollback'
  /** Faults of the three-broker cluster only (harness/chaos/topology-faults.ts). */
  | TopologyFaultKind;

export interface ScheduledFault {
  /** Ms after the run's start. */
  atMs: number;
  kind: FaultKind;
  /**
   * Worker name for kill-worker; the provider endpoint for provider-faults; `providers` for a
   * provider-outage (the whole providers process stopped: every call is refused).
   */
  target: string;
  /** How long the fault lasts (dead time before restart, or the provider fault window). */
  forMs: number;
  /** Provider fault settings while the window is open. */
  faults?: Partial<EndpointFaults>;
}

export const WORKER_COUNT = 2;

/** One process kill per this much run time on average (a 20-minute run gets about 17). */
export const KILL_EVERY_MS = 60_000;
/** One window of each provider fault type per this much run time (at least one each). */
export const PROVIDER_WINDOW_EVERY_MS = 5 * 60_000;
/** One full provider outage per this much run time (at least one). */
export const PROVIDER_OUTAGE_EVERY_MS = 10 * 60_000;
/** How long a provider outage lasts: well inside ORDER_TRANSIENT_RETRY_WINDOW's default. */
export const PROVIDER_OUTAGE_MS = { min: 30_000, max: 120_000 };
/** Dead time of a killed process before its restart. */
const DEAD_MS = { min: 1000, max: 5000 };
/** Faults land in this part of the run: after start-up, before the tail drains. */
const ACTIVE = { from: 0.05, to: 0.9 };

const KILL_TARGETS = [
  ...Array.from({ length: WORKER_COUNT }, (_, i) => `worker-${i + 1}`),
  'bridge',
] as const;

/**
 * The seeded fault schedule of a chaos run. Process kills come about once a minute at seeded
 * moments, every target at least once, so a long run kills often and a short one still kills
 * each process; provider fault windows of each type come about every five minutes. Kafka and
 * Postgres restart once each, in separate thirds so one does not mask the other; time passes
 * once, mid-run; two releases are deployed with a rollback between. A failing seed re-runs
 * with the same faults at the same offsets.
 */
export function buildSchedule(seed: number, durationMs: number): ScheduledFault[] {
  const rnd = createPrng(seed ^ 0x5eed);
  const at = (from: number, to: number) => Math.round(durationMs * (from + rnd() * (to - from)));
  const span = (minMs: number, maxMs: number) => Math.round(minMs + rnd() * (maxMs - minMs));
  const schedule: ScheduledFault[] = [
    ...scheduleKills(rnd, durationMs, at, span),
    ...scheduleProviderWindows(rnd, durationMs, at, span),
    ...scheduleProviderOutages(durationMs, at, span),
  ];
  schedule.push({ atMs: at(0.2, 0.4), kind: 'kafka-restart', target: 'kafka', forMs: 0 });
  schedule.push({ atMs: at(0.45, 0.55), kind: 'temporal-restart', target: 'temporal', forMs: 0 });
  schedule.push({ atMs: at(0.6, 0.7), kind: 'postgres-restart', target: 'postgres', forMs: 0 });
  // Drawn last, so the seeds' earlier faults keep their moments. Mid-run, while events still
  // flow, between the Temporal and the Postgres restarts.
  schedule.push({ atMs: at(0.55, 0.6), kind: 'time-passes', target: 'memories', forMs: 0 });
  // Drawn after every earlier fault, so their moments stay those of the seed.
  schedule.push({ atMs: at(0.25, 0.35), kind: 'temporal-cancel', target: 'runs', forMs: 0 });
  schedule.push({ atMs: at(0.65, 0.75), kind: 'temporal-cancel', target: 'runs', forMs: 0 });
  schedule.push({ atMs: at(0.4, 0.5), kind: 'deploy', target: 'release-1', forMs: 0 });
  // Drawn after the first deploy: a rollback of it, then the next release. Each waits for the
  // one before (they restart every worker), so they land in this order whatever the draws.
  schedule.push({ atMs: at(0.5, 0.55), kind: 'rollback', target: 'workers', forMs: 0 });
  schedule.push({ atMs: at(0.6, 0.7), kind: 'deploy', target: 'release-2', forMs: 0 });
  return schedule.sort((a, b) => a.atMs - b.atMs);
}

type At = (from: number, to: number) => number;
type Span = (minMs: number, maxMs: number) => number;

/**
 * One kill per slot of the active part of the run, at a seeded moment inside it. The first
 * slots take the targets in a seeded order so each is killed once; later slots draw a target.
 * A target still down from its last kill is killed only after its restart (pushed later),
 * because a kill of a dead process would restart it twice.
 */
function scheduleKills(rnd: () => number, durationMs: number, at: At, span: Span) {
  const slots = Math.max(
    KILL_TARGETS.length,
    Math.round((durationMs * (ACTIVE.to - ACTIVE.from)) / KILL_EVERY_MS),
  );
  const order: string[] = [...KILL_TARGETS];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const upAgainAt = new Map<string, number>();
  const kills: ScheduledFault[] = [];
  const width = (ACTIVE.to - ACTIVE.from) / slots;
  for (let s = 0; s < slots; s++) {
    const target = order[s] ?? KILL_TARGETS[Math.floor(rnd() * KILL_TARGETS.length)]!;
    const drawn = at(ACTIVE.from + s * width, ACTIVE.from + (s + 1) * width);
    const atMs = Math.max(drawn, (upAgainAt.get(target) ?? 0) + 1000);
    const forMs = span(DEAD_MS.min, DEAD_MS.max);
    upAgainAt.set(target, atMs + forMs);
    kills.push({
      atMs,
      kind: target === 'bridge' ? 'kill-bridge' : 'kill-worker',
      target,
      forMs,
    });
  }
  return kills;
}

/**
 * Windows of the three provider fault types (failure before commit, timeout after commit,
 * latency), each type on an endpoint drawn from the seed, the same number of each, spread over
 * the active part of the run. Overlapping windows on one endpoint are merged by the runner.
 */
function scheduleProviderWindows(rnd: () => number, durationMs: number, at: At, span: Span) {
  const endpoints: FaultEndpoint[] = ['charges', 'emails', 'refunds'];
  const perType = Math.max(1, Math.round(durationMs / PROVIDER_WINDOW_EVERY_MS));
  const width = (ACTIVE.to - ACTIVE.from) / perType;
  const windows: ScheduledFault[] = [];
  for (let w = 0; w < perType; w++) {
    const types: Partial<EndpointFaults>[] = [
      { failBeforeCommitRate: 0.3 + rnd() * 0.3 },
      { timeoutAfterCommitRate: 0.2 + rnd() * 0.3 },
      { latencyMs: span(200, 1500) },
    ];
    // Rotating from a seeded offset puts the three types on three different endpoints.
    const offset = Math.floor(rnd() * endpoints.length);
    types.forEach((faults, i) => {
      windows.push({
        atMs: at(ACTIVE.from + w * width, ACTIVE.from + (w + 0.5) * width),
        kind: 'provider-faults',
        target: endpoints[(offset + i) % endpoints.length]!,
        forMs: Math.round(durationMs * width * (0.15 + rnd() * 0.25)),
        faults,
      });
    });
  }
  return windows;
}
/**
 * Full provider outages: the providers process stopped (connections refused) for 30–120 s,
 * one per PROVIDER_OUTAGE_EVERY_MS slot, never past the active part of the run (a short run
 * gets a shorter outage). Orders must wait them out, not park: they are far shorter than the
 * transient retry window.
 */
function scheduleProviderOutages(durationMs: number, at: At, span: Span) {
  const slots = Math.max(1, Math.round(durationMs / PROVIDER_OUTAGE_EVERY_MS));
  const width = (ACTIVE.to - ACTIVE.from) / slots;
  const outages: ScheduledFault[] = [];
  for (let o = 0; o < slots; o++) {
    const atMs = at(ACTIVE.from + o * width, ACTIVE.from + (o + 0.5) * width);
    const endOfSlot = Math.round(durationMs * (ACTIVE.from + (o + 1) * width));
    const forMs = Math.min(span(PROVIDER_OUTAGE_MS.min, PROVIDER_OUTAGE_MS.max), endOfSlot - atMs);
    outages.push({ atMs, kind: 'provider-outage', target: 'providers', forMs });
  }
  return outages;
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
