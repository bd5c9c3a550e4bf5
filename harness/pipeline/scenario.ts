import type pg from 'pg';
import { setStock } from '../../src/domains/orders/inventory/stock-store';
import {
  generateOrderStream,
  type OrderStream,
  type OrderStreamOptions,
} from '../tools/order-stream';
import {
  generatePayoutStream,
  interleaveRecords,
  type PayoutStream,
  type PayoutStreamOptions,
} from '../tools/payout-stream';
import { generateCartStream, type CartStream, type CartStreamOptions } from '../tools/cart-stream';
import type { KafkaRecord } from '../../src/events/event-message';

/**
 * The demo's run: orders (most succeed; some are declined, out of stock, cancelled, or broken),
 * payouts beside them (most paid; some refused, cancelled, re-sent or broken) and carts (one
 * to five lines each; some paid by the backup card, some declined on both, cancelled, re-sent
 * or broken), published as one stream.
 */
export interface DemoScenario {
  run: string;
  /** Prefix of every entity ID of the run (orders and payouts): what the run's queries select. */
  prefix: string;
  /** Prefix of the run's order IDs. */
  orderPrefix: string;
  /** Prefix of the run's payout IDs. */
  payoutPrefix: string;
  /** Prefix of the run's cart IDs. */
  cartPrefix: string;
  stream: OrderStream;
  payouts: PayoutStream;
  carts: CartStream;
  /** The three streams' records, interleaved (each keeps its own order). */
  records: KafkaRecord[];
  /** Workflows the bridge starts for the run: the orders', the payouts' and the carts'. */
  expectedWorkflows: number;
  /** Stock seeded per SKU of this run (SKUs are run-specific, so runs do not interfere). */
  initialStock: Map<string, number>;
}

export const DEMO_MIX = {
  duplicateRate: 0.1,
  reemitRate: 0.05,
  cancelRate: 0.06,
  poisonRate: 0.03,
  conflictRate: 0.02,
  /** Every n-th order's customer has a card that the sandbox declines. */
  declineEvery: 17,
  /** Every n-th order asks for the scarce SKU, of which only a few units exist. */
  scarceEvery: 13,
  scarceUnits: 4,
} as const;

/** The demo's payout mix beside its orders (rates per payout). */
export const PAYOUT_MIX = {
  /** Payouts per order of the run. */
  perOrder: 0.25,
  duplicateRate: 0.1,
  reemitRate: 0.05,
  versionBumpRate: 0.04,
  conflictRate: 0.02,
  cancelRate: 0.1,
  poisonRate: 0.03,
  /** Every n-th payout's beneficiary is blocked: refused before any transfer. */
  blockedEvery: 11,
} as const satisfies Partial<PayoutStreamOptions> & { perOrder: number; blockedEvery: number };

/** The demo's cart mix beside its orders (rates per cart). */
export const CART_MIX = {
  /** Carts per order of the run. */
  perOrder: 0.25,
  duplicateRate: 0.1,
  reemitRate: 0.05,
  versionBumpRate: 0.04,
  conflictRate: 0.02,
  /** Higher than the others': a cancellation lands at a random point of a long body. */
  cancelRate: 0.15,
  /** Primary card declined: the backup card pays (a caught business failure). */
  declineRate: 0.15,
  /** Of those, the backup declined too: the cart ends declined, every line released. */
  backupDeclineRate: 0.25,
  poisonRate: 0.03,
} as const satisfies Partial<CartStreamOptions> & { perOrder: number };

/**
 * The demo's stream for `orders` orders. `extra` adds defects the demo leaves out (the chaos
 * run adds stale versions and the producer mistakes); rates not given there keep DEMO_MIX's.
 */
export function buildScenario(
  orders: number,
  seed: number,
  extra: Pick<
    OrderStreamOptions,
    'staleRate' | 'resendRate' | 'versionBumpRate' | 'orderIdMismatchRate' | 'merchantId'
  > = {},
): DemoScenario {
  const run = `demo${Date.now().toString(36)}`;
  const orderPrefix = `${run}-order`;
  const payoutPrefix = `${run}-payout`;
  const cartPrefix = `${run}-cart`;
  const skus = Array.from({ length: 5 }, (_, i) => `${run}-SKU-${i + 1}`);
  const scarce = `${run}-SKU-SCARCE`;
  const stream = generateOrderStream({
    orders,
    seed,
    prefix: orderPrefix,
    duplicateRate: DEMO_MIX.duplicateRate,
    reemitRate: DEMO_MIX.reemitRate,
    cancelRate: DEMO_MIX.cancelRate,
    poisonRate: DEMO_MIX.poisonRate,
    conflictRate: DEMO_MIX.conflictRate,
    ...extra,
    sku: (i, line) =>
      i % DEMO_MIX.scarceEvery === 5 && line === 0 ? scarce : skus[(i + line) % skus.length]!,
    customerId: (i) =>
      i % DEMO_MIX.declineEvery === 3 ? `declined-${run}-${i}` : `${run}-cust-${i % 40}`,
  });
  const initialStock = new Map<string, number>([
    ...skus.map((s) => [s, 100_000] as const),
    [scarce, DEMO_MIX.scarceUnits],
  ]);
  const { perOrder, blockedEvery, ...payoutRates } = PAYOUT_MIX;
  const payouts = generatePayoutStream({
    payouts: Math.ceil(orders * perOrder),
    seed,
    prefix: payoutPrefix,
    ...payoutRates,
    beneficiaryId: (i) => (i % blockedEvery === 4 ? `blocked-${run}-${i}` : `${run}-ben-${i % 40}`),
  });
  const { perOrder: cartsPerOrder, ...cartRates } = CART_MIX;
  const carts = generateCartStream({
    carts: Math.ceil(orders * cartsPerOrder),
    seed,
    prefix: cartPrefix,
    ...cartRates,
  });
  return {
    run,
    prefix: `${run}-`,
    orderPrefix,
    payoutPrefix,
    cartPrefix,
    stream,
    payouts,
    carts,
    records: interleaveRecords(interleaveRecords(stream.records, payouts.records), carts.records),
    expectedWorkflows:
      stream.expectedWorkflows + payouts.expectedWorkflows + carts.expectedWorkflows,
    initialStock,
  };
}

export async function seedStock(pool: pg.Pool, scenario: DemoScenario): Promise<void> {
  for (const [sku, units] of scenario.initialStock) await setStock(pool, sku, units);
}
