import { buildEventMessage, type KafkaRecord } from '../../src/events/event-message';
import { createPrng } from '../../src/util/prng';
import {
  CART_EVENT_TYPES,
  type CartCancelledData,
  type CartCheckedOutData,
  type CartLine,
} from '../../src/domains/carts/cart-events';
import { seededId } from './order-stream';

/** The sandbox's card tokens: one it charges, one it always declines (402). */
export const CARDS = { good: 'tok_visa', backup: 'tok_mastercard', declined: 'tok_chargeDeclined' };

/** What the generated cart stream holds besides one clean CartCheckedOut per cart. */
export interface CartStreamOptions {
  carts: number;
  /** Seed of the pseudo-random choices; the same seed gives the same stream. Default: 1. */
  seed?: number;
  /** Prefix of cart IDs; a run-specific one keeps runs apart. Default: `cart`. */
  prefix?: string;
  /** Most lines of one cart (each cart has 1 to this many, one SKU each). Default: 5. */
  maxLines?: number;
  /** Fraction of events sent again (same event ID). Default: 0. */
  duplicateRate?: number;
  /** Fraction of carts re-emitted under a fresh event ID with the same version. Default: 0. */
  reemitRate?: number;
  /**
   * Fraction of carts re-emitted as the next version with identical data (two identities,
   * two workflows; the second must end `duplicate` and act on nothing). Default: 0.
   */
  versionBumpRate?: number;
  /** Fraction of carts whose version 1 is re-sent with another address (DLQ'd). Default: 0. */
  conflictRate?: number;
  /** Fraction of carts followed by a CartCancelled. Default: 0. */
  cancelRate?: number;
  /** Fraction of carts whose primary card is declined (the backup card pays). Default: 0. */
  declineRate?: number;
  /** Of those, the fraction whose backup card is declined too (the cart ends declined). Default: 0. */
  backupDeclineRate?: number;
  /**
   * Fraction of extra poison messages: a total that is not the lines' sum, a SKU on two lines,
   * or a cartId that is not the aggregate's (each dead-lettered `validation-failed`). Default: 0.
   */
  poisonRate?: number;
}

export interface CartStream {
  records: KafkaRecord[];
  /** Every valid CartCheckedOut payload, by cart ID (what must be acted on once). */
  carts: Map<string, CartCheckedOutData>;
  /** Carts followed by a CartCancelled. */
  cancelledCartIds: string[];
  /** Workflows the bridge starts: one per cart, cancellation and version bump. */
  expectedWorkflows: number;
  counts: {
    carts: number;
    lines: number;
    declined: number;
    backupDeclined: number;
    duplicates: number;
    reemits: number;
    versionBumps: number;
    conflicts: number;
    cancels: number;
    poison: number;
  };
}

/** A different PRNG stream from the orders' and payouts' of the same seed, still fixed by it. */
const CART_SEED_SALT = 0x7f4a7c15;

/** The SKUs a cart's lines are drawn from (each cart takes distinct ones). */
const SKU_POOL = ['apple', 'pear', 'fig', 'plum', 'kiwi', 'lime', 'date', 'quince'];

/**
 * A contract-conforming stream of cart events with chosen defects, in an order a real producer
 * could emit: a cart's events stay in order; duplicates follow their original.
 */
export function generateCartStream(options: CartStreamOptions): CartStream {
  const seed = options.seed ?? 1;
  const random = createPrng((seed ^ CART_SEED_SALT) >>> 0);
  const prefix = options.prefix ?? 'cart';
  let ids = 0;
  const nextId = () => seededId(seed, prefix, ids++);
  const draw = (rate: number | undefined) => (rate ? random() < rate : false);
  const pick = (n: number) => Math.floor(random() * n);
  const records: KafkaRecord[] = [];
  const counts: CartStream['counts'] = {
    carts: 0,
    lines: 0,
    declined: 0,
    backupDeclined: 0,
    duplicates: 0,
    reemits: 0,
    versionBumps: 0,
    conflicts: 0,
    cancels: 0,
    poison: 0,
  };
  const carts = new Map<string, CartCheckedOutData>();
  const cancelledCartIds: string[] = [];
  const maybeDuplicate = (record: KafkaRecord) => {
    records.push(record);
    if (draw(options.duplicateRate)) {
      records.push(record);
      counts.duplicates++;
    }
  };
  const checkedOut = (aggregateId: string, data: unknown, version: number, style?: 'body') =>
    buildEventMessage(
      {
        eventId: nextId(),
        eventType: CART_EVENT_TYPES.cartCheckedOut,
        aggregateId,
        aggregateVersion: version,
        data,
      },
      style,
    );
  const linesOf = (): CartLine[] => {
    const pool = [...SKU_POOL];
    return Array.from({ length: 1 + pick(Math.min(options.maxLines ?? 5, pool.length)) }, () => ({
      sku: pool.splice(pick(pool.length), 1)[0]!,
      quantity: 1 + pick(4),
      unitPriceMinor: 100 + pick(5000),
    }));
  };
  for (let i = 0; i < options.carts; i++) {
    const cartId = `${prefix}-${i}`;
    const lines = linesOf();
    const declined = draw(options.declineRate);
    const backupDeclined = declined && draw(options.backupDeclineRate);
    const data: CartCheckedOutData = {
      cartId,
      customerId: `cus-${cartId}`,
      email: `${cartId}@example.com`,
      currency: 'EUR',
      lines,
      totalMinor: lines.reduce((s, l) => s + l.quantity * l.unitPriceMinor, 0),
      primaryCard: declined ? CARDS.declined : CARDS.good,
      backupCard: backupDeclined ? CARDS.declined : CARDS.backup,
      address: `${i} Quay Street`,
    };
    counts.carts++;
    counts.lines += lines.length;
    if (declined) counts.declined++;
    if (backupDeclined) counts.backupDeclined++;
    carts.set(cartId, data);
    let version = 1;
    maybeDuplicate(checkedOut(cartId, data, version));
    if (draw(options.reemitRate)) {
      records.push(checkedOut(cartId, data, version, 'body'));
      counts.reemits++;
    }
    if (draw(options.conflictRate)) {
      records.push(checkedOut(cartId, { ...data, address: `${data.address}, rear` }, version));
      counts.conflicts++;
    }
    if (draw(options.versionBumpRate)) {
      records.push(checkedOut(cartId, data, ++version));
      counts.versionBumps++;
    }
    if (draw(options.cancelRate)) {
      const cancel: CartCancelledData = { cartId, reason: 'the customer changed their mind' };
      maybeDuplicate(
        buildEventMessage({
          eventId: nextId(),
          eventType: CART_EVENT_TYPES.cartCancelled,
          aggregateId: cartId,
          aggregateVersion: version + 1,
          data: cancel,
        }),
      );
      counts.cancels++;
      cancelledCartIds.push(cartId);
    }
    if (draw(options.poisonRate)) {
      const kind = pick(3);
      const poisonId = `${prefix}-poison-${i}`;
      const bad =
        kind === 0
          ? { ...data, cartId: poisonId, totalMinor: data.totalMinor + 1 }
          : kind === 1
            ? { ...data, cartId: poisonId, lines: [...lines, lines[0]!] }
            : data; // another aggregate naming this cart
      records.push(checkedOut(poisonId, bad, 1));
      counts.poison++;
    }
  }
  const expectedWorkflows = counts.carts + counts.cancels + counts.versionBumps;
  return { records, carts, cancelledCartIds, expectedWorkflows, counts };
}
