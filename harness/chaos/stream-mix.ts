import type { OrderStream, OrderStreamOptions } from '../tools/order-stream';
import type { PayoutStream } from '../tools/payout-stream';
import type { CartStream } from '../tools/cart-stream';

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

/**
 * The report's stream table: what was published besides one clean event per order (and per
 * payout and cart, when the run has them beside its orders).
 */
export function describeStreamRows(
  stream: OrderStream,
  payouts?: PayoutStream,
  carts?: CartStream,
): [string, number][] {
  const c = stream.counts;
  const p = payouts?.counts;
  const k = carts?.counts;
  return [
    [
      'messages',
      stream.records.length + (payouts?.records.length ?? 0) + (carts?.records.length ?? 0),
    ],
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
    ...(p
      ? ([
          ['payouts requested (paid or refused)', p.payouts],
          ['payout cancellations', p.cancels],
          ['payout redeliveries (same event)', p.duplicates],
          ['payout re-emits (same version, new event ID)', p.reemits],
          ['payout version bumps (same payout, next version)', p.versionBumps],
          ['payout identity conflicts', p.conflicts],
          ['payout poison', p.poison],
        ] as [string, number][])
      : []),
    ...(k
      ? ([
          ['carts checked out (fulfilled or declined)', k.carts],
          ['cart lines (each held once)', k.lines],
          ['carts whose primary card is declined (the backup pays)', k.declined],
          ['carts whose backup card is declined too', k.backupDeclined],
          ['cart cancellations', k.cancels],
          ['cart redeliveries (same event)', k.duplicates],
          ['cart re-emits (same version, new event ID)', k.reemits],
          ['cart version bumps (same cart, next version)', k.versionBumps],
          ['cart identity conflicts', k.conflicts],
          ['cart poison', k.poison],
        ] as [string, number][])
      : []),
  ];
}

/** The one-line summary printed after publishing. */
export function describeStreamLine(
  stream: OrderStream,
  payouts?: PayoutStream,
  carts?: CartStream,
): string {
  const c = stream.counts;
  const p = payouts?.counts;
  const k = carts?.counts;
  return (
    `published ${stream.records.length} messages (${c.duplicates} redeliveries, ${c.reemits} re-emits, ` +
    `${c.resends} resends, ${c.versionBumps} version bumps, ${c.conflicts} conflicts, ${c.stale} stale, ` +
    `${c.orderIdMismatches} orderId mismatches, ${c.poison} poison)` +
    (payouts && p
      ? ` and ${payouts.records.length} payout messages (${p.payouts} payouts, ${p.cancels} cancellations, ` +
        `${p.duplicates} redeliveries, ${p.reemits} re-emits, ${p.versionBumps} version bumps, ` +
        `${p.conflicts} conflicts, ${p.poison} poison)`
      : '') +
    (carts && k
      ? ` and ${carts.records.length} cart messages (${k.carts} carts of ${k.lines} lines, ` +
        `${k.declined} primary cards declined, ${k.cancels} cancellations, ${k.duplicates} redeliveries, ` +
        `${k.reemits} re-emits, ${k.versionBumps} version bumps, ${k.conflicts} conflicts, ${k.poison} poison)`
      : '')
  );
}

/**
 * Messages the bridge must dead-letter, at least: poison, orderId mismatches, identity
 * conflicts and stale versions (and the payouts' and carts' poison and identity conflicts) (a
 * bridge killed after a DLQ write may write one again).
 */
export function expectedDeadLetters(
  stream: OrderStream,
  payouts?: PayoutStream,
  carts?: CartStream,
): number {
  const c = stream.counts;
  const p = payouts?.counts;
  const k = carts?.counts;
  return (
    c.poison +
    c.orderIdMismatches +
    c.conflicts +
    c.stale +
    (p ? p.poison + p.conflicts : 0) +
    (k ? k.poison + k.conflicts : 0)
  );
}
