import { createHash } from 'node:crypto';
import { HEADER } from '../../src/events/envelope';
import { createPrng } from '../../src/util/prng';
import { buildEventMessage, type KafkaRecord } from '../../src/events/event-message';
import { sampleOrderCancelled, sampleOrderPlaced } from '../../src/domains/orders/order-samples';
import { EVENT_TYPES, type OrderPlacedData } from '../../src/domains/orders/order-events';

/** What the generated stream contains besides one clean OrderPlaced per order. */
export interface OrderStreamOptions {
  orders: number;
  /** Seed of the pseudo-random choices; the same seed gives the same stream. Default: 1. */
  seed?: number;
  /** Fraction of events sent again (same event ID). Default: 0. */
  duplicateRate?: number;
  /** Fraction of orders re-emitted under a fresh event ID with the same version. Default: 0. */
  reemitRate?: number;
  /** Fraction of orders followed by an OrderCancelled (version 2). Default: 0. */
  cancelRate?: number;
  /** Fraction of extra poison messages (unparseable, invalid, unknown type). Default: 0. */
  poisonRate?: number;
  /** Fraction of orders whose version 1 is re-sent with other data (identity-conflict). Default: 0. */
  conflictRate?: number;
  /**
   * Fraction of orders whose cancellation (version 2) overtakes the placement (version 1), as
   * after a producer's retry reorders them: the late placement is stale (DLQ'd, never
   * fulfilled) and the cancellation finds no order. Such orders are not in `orders`. Default: 0.
   */
  staleRate?: number;
  /**
   * Fraction of orders from a producer that does not version its events and re-sends the
   * OrderPlaced after a timeout under a fresh event ID: two identical, unversioned placements
   * (two identities, two workflows; the second finds the order claimed and ends `duplicate`).
   * Such orders (and their cancellations) carry no version. Default: 0.
   */
  resendRate?: number;
  /**
   * Fraction of orders re-emitted as version 2 with identical data (two identities, two
   * workflows; the second ends `duplicate`); their cancellation is then version 3. Default: 0.
   */
  versionBumpRate?: number;
  /**
   * Fraction of orders followed by an OrderPlaced of another aggregate whose `data.orderId`
   * names this order: poison (`validation-failed`), never a workflow. Default: 0.
   */
  orderIdMismatchRate?: number;
  /** Prefix of order IDs; a run-specific one keeps runs apart. Default: `order`. */
  prefix?: string;
  /** SKU chooser, so a demo can aim some orders at scarce stock. Default: SKU-1..SKU-5. */
  sku?: (orderIndex: number, line: number) => string;
  /** Customer chooser (e.g. a declined card). Default: `cust-<order>`. */
  customerId?: (orderIndex: number) => string;
  /** Merchant chooser: the run's tenant (its fairness key). Default: none. */
  merchantId?: (orderIndex: number) => string;
}

export interface OrderStream {
  records: KafkaRecord[];
  /** Every valid OrderPlaced payload, by order ID (what the pipeline must act on once). */
  orders: Map<string, OrderPlacedData>;
  /** Orders followed by an OrderCancelled. */
  cancelledOrderIds: string[];
  /** Orders whose placement arrived after their cancellation (stale; only the cancellation runs). */
  staleOrderIds: string[];
  /**
   * Workflows the bridge starts for this stream: one per order, cancellation, resend and
   * version bump (each resent order has two, one of which ends `duplicate`).
   */
  expectedWorkflows: number;
  counts: {
    orders: number;
    duplicates: number;
    reemits: number;
    cancels: number;
    poison: number;
    conflicts: number;
    /** Late placements (stale versions); each also counts one cancellation. */
    stale: number;
    /** Unversioned placements re-sent under a fresh event ID. */
    resends: number;
    /** Placements re-emitted as the next version with identical data. */
    versionBumps: number;
    /** Placements whose data.orderId is not their aggregate (poison, besides `poison`). */
    orderIdMismatches: number;
  };
}

/**
 * The n-th event ID of a stream: from the seed and the stream's order-ID prefix, so two runs
 * of one seed (chaos on the same stack, whose prefixes differ) never share an event ID, and
 * an event of one cannot find the other's workflow as its own with another payload.
 */
export function seededId(seed: number, prefix: string, n: number): string {
  const h = createHash('sha256').update(`${prefix}:${seed}:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A contract-conforming stream of order events with chosen defects, in an order a real
 * producer could emit: an order's events stay in order; duplicates follow their original.
 */
export function generateOrderStream(options: OrderStreamOptions): OrderStream {
  const seed = options.seed ?? 1;
  const random = createPrng(seed);
  let ids = 0;
  const prefix = options.prefix ?? 'order';
  const nextId = () => seededId(seed, prefix, ids++);
  const records: KafkaRecord[] = [];
  const counts = {
    orders: 0,
    duplicates: 0,
    reemits: 0,
    cancels: 0,
    poison: 0,
    conflicts: 0,
    stale: 0,
    resends: 0,
    versionBumps: 0,
    orderIdMismatches: 0,
  };
  const orders = new Map<string, OrderPlacedData>();
  const cancelledOrderIds: string[] = [];
  const staleOrderIds: string[] = [];
  const maybeDuplicate = (record: KafkaRecord) => {
    records.push(record);
    if (random() < (options.duplicateRate ?? 0)) {
      records.push(record);
      counts.duplicates++;
    }
  };
  // Each call takes the next seeded event ID, so the order of calls is part of the stream.
  // A version of `null` is an unversioned event.
  const placed = (
    orderId: string,
    data: OrderPlacedData,
    how: { style?: 'body'; version?: number | null; aggregateId?: string } = {},
  ) => {
    const version = how.version === undefined ? 1 : how.version;
    return buildEventMessage(
      {
        eventId: nextId(),
        eventType: EVENT_TYPES.orderPlaced,
        aggregateId: how.aggregateId ?? orderId,
        ...(version !== null ? { aggregateVersion: version } : {}),
        data,
      },
      how.style,
    );
  };
  const cancelled = (orderId: string, version: number | null = 2) =>
    buildEventMessage({
      eventId: nextId(),
      eventType: EVENT_TYPES.orderCancelled,
      aggregateId: orderId,
      ...(version !== null ? { aggregateVersion: version } : {}),
      data: sampleOrderCancelled(orderId),
    });
  // Rates drawn only when asked for, so streams without these mistakes stay as their seeds
  // made them.
  const draw = (rate: number | undefined) => (rate ? random() < rate : false);
  for (let i = 0; i < options.orders; i++) {
    const orderId = `${prefix}-${i}`;
    const data = sampleOrderPlaced(orderId, {
      lines: 1 + Math.floor(random() * 3),
      sku: options.sku ? (line) => options.sku!(i, line) : undefined,
      customerId: options.customerId?.(i),
      merchantId: options.merchantId?.(i),
    });
    // Drawn only when asked for, so streams without stale versions stay as their seeds made them.
    if (options.staleRate && random() < options.staleRate) {
      maybeDuplicate(cancelled(orderId));
      records.push(placed(orderId, data));
      counts.stale++;
      counts.cancels++;
      staleOrderIds.push(orderId);
      continue;
    }
    counts.orders++;
    orders.set(orderId, data);
    // The next version this order's producer would use; null for an unversioned producer.
    let nextVersion: number | null = 2;
    if (draw(options.resendRate)) {
      maybeDuplicate(placed(orderId, data, { version: null }));
      records.push(placed(orderId, data, { version: null }));
      counts.resends++;
      nextVersion = null;
    } else {
      maybeDuplicate(placed(orderId, data));
      if (random() < (options.reemitRate ?? 0)) {
        records.push(placed(orderId, data, { style: 'body' }));
        counts.reemits++;
      }
      if (random() < (options.conflictRate ?? 0)) {
        records.push(placed(orderId, { ...data, email: `changed-${data.email}` }));
        counts.conflicts++;
      }
      if (draw(options.versionBumpRate)) {
        records.push(placed(orderId, data, { version: nextVersion++ }));
        counts.versionBumps++;
      }
    }
    if (draw(options.orderIdMismatchRate)) {
      // Another aggregate claiming this order: same data, so same orderId, foreign aggregate.
      records.push(placed(orderId, data, { aggregateId: `${prefix}-alias-${i}` }));
      counts.orderIdMismatches++;
    }
    if (random() < (options.cancelRate ?? 0)) {
      maybeDuplicate(cancelled(orderId, nextVersion));
      counts.cancels++;
      cancelledOrderIds.push(orderId);
    }
    if (random() < (options.poisonRate ?? 0)) {
      records.push(poisonRecord(`${prefix}-poison-${i}`, Math.floor(random() * 3), nextId()));
      counts.poison++;
    }
  }
  const expectedWorkflows = counts.orders + counts.cancels + counts.resends + counts.versionBumps;
  return { records, orders, cancelledOrderIds, staleOrderIds, expectedWorkflows, counts };
}

function poisonRecord(aggregateId: string, kind: number, eventId: string): KafkaRecord {
  if (kind === 0)
    return {
      key: aggregateId,
      value: '{"data": not json',
      headers: {
        [HEADER.eventId]: eventId,
        [HEADER.eventType]: EVENT_TYPES.orderPlaced,
        [HEADER.aggregateId]: aggregateId,
      },
    };
  if (kind === 1) {
    const data = { ...sampleOrderPlaced(aggregateId), totalMinor: 1 };
    return buildEventMessage({
      eventId,
      eventType: EVENT_TYPES.orderPlaced,
      aggregateId,
      aggregateVersion: 1,
      data,
    });
  }
  return buildEventMessage({
    eventId,
    eventType: 'OrderShipped',
    aggregateId,
    aggregateVersion: 1,
    data: { aggregateId },
  });
}
