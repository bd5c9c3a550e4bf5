/** What the fairness bench (harness/bench/fairness.ts) measures, and its table. */

export interface FairnessOptions {
  /** Tenant A's flood (orders at once). */
  orders: number;
  /** Events the backfill re-reads. */
  backfill: number;
  /** The mail provider's limit, calls per second. */
  mailLimit: number;
  /** How long the no-flood baselines run, in seconds. */
  baselineSeconds: number;
}

/** Latencies of one tenant's orders, in ms: produce → completed, and produce → run started. */
export interface Latency {
  orders: number;
  p50: number;
  p95: number;
  max: number;
  /** Produce → the run started: the wait in the bridge. */
  bridgeP50: number;
  bridgeP95: number;
  bridgeMax: number;
  load: string;
}

export interface FairnessResult {
  options: FairnessOptions;
  baseline: Latency;
  fairnessOn: Latency & { floodDrainSeconds: number };
  fairnessOff: Latency & { floodDrainSeconds: number };
  /** Fairness on, one setting changed (VARIANTS): eager on, sticky off, no open-run caps. */
  variants: Record<string, Latency & { floodDrainSeconds: number }>;
  mail: {
    orders: number;
    limitPerSecond: number;
    maxInAnySecond: number;
    maxInAnyCalendarSecond: number;
    /** Mails per second from the first to the last (the provider's own clock). */
    ratePerSecond: number;
    parked: number;
    mailedOtherThanOnce: number;
    drainSeconds: number;
    load: string;
  };
  backfill: {
    events: number;
    liveAlone: Latency;
    liveDuringBackfill: Latency;
    drainSeconds: number;
    /** The same backfill with no open-run caps on its bridge. */
    uncapped: { liveAlone: Latency; liveDuringBackfill: Latency; drainSeconds: number };
  };
}

const row = (name: string, l: Latency) =>
  `| ${name} | ${l.p50} | ${l.p95} | ${l.max} | ${l.bridgeP50} / ${l.bridgeP95} / ${l.bridgeMax} | ${l.orders} | ${l.load} |`;

/** The bench's table: what the "Done when" asks, each with the load it was measured at. */
export function formatFairness(r: FairnessResult): string {
  const m = r.mail;
  return [
    '',
    `fairness: tenant A floods ${r.options.orders} orders; tenant B 1 order/s (latency in ms: produce → completed; bridge: produce → started)`,
    '| B | p50 | p95 | max | bridge p50 / p95 / max | orders | load (1, 5, 15 min) |',
    '|---|---|---|---|---|---|---|',
    row('no flood (baseline)', r.baseline),
    row(`fairness on (A drained in ${r.fairnessOn.floodDrainSeconds} s)`, r.fairnessOn),
    row(`fairness off (A drained in ${r.fairnessOff.floodDrainSeconds} s)`, r.fairnessOff),
    ...Object.entries(r.variants).map(([name, l]) =>
      row(`fairness on, ${name} (A drained in ${l.floodDrainSeconds} s)`, l),
    ),
    `goal: on p95 ≤ 2 × baseline p95 → ${r.fairnessOn.p95} vs ${2 * r.baseline.p95}`,
    '',
    `mail limited to ${m.limitPerSecond}/s, two workers, ${m.orders} orders (drained in ${m.drainSeconds} s, ${m.load}):`,
    `  most mails in any one second ${m.maxInAnySecond} (sliding), ${m.maxInAnyCalendarSecond} (calendar); ${m.ratePerSecond} mails/s; parked ${m.parked}; mailed other than once ${m.mailedOtherThanOnce}`,
    `goal: ≥ ${0.9 * m.limitPerSecond}/s, never more than ${m.limitPerSecond} in a sliding second → ${m.ratePerSecond}/s, ${m.maxInAnySecond}`,
    '',
    `backfill of ${r.backfill.events} re-read events (drained in ${r.backfill.drainSeconds} s), live orders 2/s:`,
    '| live | p50 | p95 | max | bridge p50 / p95 / max | orders | load (1, 5, 15 min) |',
    '|---|---|---|---|---|---|---|',
    row('alone', r.backfill.liveAlone),
    row('during the backfill', r.backfill.liveDuringBackfill),
    row('alone (second run)', r.backfill.uncapped.liveAlone),
    row(
      `during the backfill, no open-run caps (drained in ${r.backfill.uncapped.drainSeconds} s)`,
      r.backfill.uncapped.liveDuringBackfill,
    ),
    `goal: live p95 ≤ 2 × alone → ${r.backfill.liveDuringBackfill.p95} vs ${2 * r.backfill.liveAlone.p95}`,
    '',
  ].join('\n');
}
