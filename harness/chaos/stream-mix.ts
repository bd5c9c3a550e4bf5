import type { OrderStream, OrderStreamOptions } from '../tools/order-stream';

/**
 * What the chaos run adds to the demo's order mix (rates per order): late placements (stale
 * versions) and the producer mistakes that must not cost a second effect: an unversioned
 * OrderPlaced re-sent under a fresh event ID, the same order re-emitted as the next version,
 * and an aggregate whose data names another order (dead-lettered).
 */
export const CHAOS_STREAM_MIX = {
  staleRate: 0.02,
  resendRate: 0.03,
  versionBumpRate: 0.03,
  orderIdMismatchRate: 0.02,
} as const satisfies Partial<OrderStreamOptions>;

/** The report's stream table: what was published besides one clean event per order. */
export function describeStreamRows(stream: OrderStream): [string, number][] {
  const c = stream.counts;
  return [
    ['messages', stream.records.length],
    ['orders placed (fulfilled or declined)', c.orders],
    ['cancellations', c.cancels],
    ['redeliveries (same event)', c.duplicates],
    ['re-emits (same version, new event ID)', c.reemits],
    ['resends (fresh event ID, no version)', c.resends],
    ['version bumps (same order, next version)', c.versionBumps],
    ['identity conflicts', c.conflicts],
    ['stale versions (placement after cancellation)', c.stale],
    ['orderId ≠ aggregateId (poison)', c.orderIdMismatches],
    ['poison', c.poison],
  ];
}

/** The one-line summary printed after publishing. */
export function describeStreamLine(stream: OrderStream): string {
  const c = stream.counts;
  return (
    `published ${stream.records.length} messages (${c.duplicates} redeliveries, ${c.reemits} re-emits, ` +
    `${c.resends} resends, ${c.versionBumps} version bumps, ${c.conflicts} conflicts, ${c.stale} stale, ` +
    `${c.orderIdMismatches} orderId mismatches, ${c.poison} poison)`
  );
}

/**
 * Messages the bridge must dead-letter, at least: poison, orderId mismatches, identity
 * conflicts and stale versions (a bridge killed after a DLQ write may write one again).
 */
export function expectedDeadLetters(stream: OrderStream): number {
  const c = stream.counts;
  return c.poison + c.orderIdMismatches + c.conflicts + c.stale;
}
