/**
 * The bridge bench's rounds: raw loop, bridge, raw loop, bridge, ..., raw loop. Each bridge run
 * is compared with the mean of the two raw runs around it, and the bench reports the median of
 * those ratios. Why: on this machine the server's own cost per start moves by a third between
 * identical raw runs a minute apart (3.3-6.4 ms of Temporal CPU per start, measured), so one
 * pair of runs says more about that minute than about the bridge.
 */

/** One bridge run and the raw runs on either side of it (starts per second). */
export interface BridgeRound {
  rawBefore: number;
  bridge: number;
  rawAfter: number;
  /** bridge / mean(rawBefore, rawAfter), to two decimals. */
  ratio: number;
}

/** Pairs n bridge rates with the n + 1 raw rates taken around them. */
export function roundsOf(raws: readonly number[], bridges: readonly number[]): BridgeRound[] {
  if (raws.length !== bridges.length + 1)
    throw new Error(
      `need one raw run more than bridge runs, got ${raws.length} and ${bridges.length}`,
    );
  return bridges.map((bridge, i) => {
    const rawBefore = raws[i]!;
    const rawAfter = raws[i + 1]!;
    return { rawBefore, bridge, rawAfter, ratio: round2(bridge / ((rawBefore + rawAfter) / 2)) };
  });
}

/** The median (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
