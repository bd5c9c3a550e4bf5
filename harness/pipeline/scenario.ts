import type pg from 'pg';
import { setStock } from '../../src/domains/orders/inventory/stock-store';
import {
  generateOrderStream,
  type OrderStream,
  type OrderStreamOptions,
} from '../tools/order-stream';

/** The demo's order mix: most orders succeed; some are declined, out of stock, cancelled, or broken. */
export interface DemoScenario {
  run: string;
  prefix: string;
  stream: OrderStream;
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

/**
 * The demo's stream for `orders` orders. `extra` adds defects the demo leaves out (the chaos
 * run adds stale versions and the producer mistakes); rates not given there keep DEMO_MIX's.
 */
export function buildScenario(
  orders: number,
  seed: number,
  extra: Pick<
    OrderStreamOptions,
    'staleRate' | 'resendRate' | 'versionBumpRate' | 'orderIdMismatchRate'
  > = {},
): DemoScenario {
  const run = `demo${Date.now().toString(36)}`;
  const prefix = `${run}-order`;
  const skus = Array.from({ length: 5 }, (_, i) => `${run}-SKU-${i + 1}`);
  const scarce = `${run}-SKU-SCARCE`;
  const stream = generateOrderStream({
    orders,
    seed,
    prefix,
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
  return { run, prefix, stream, initialStock };
}

export async function seedStock(pool: pg.Pool, scenario: DemoScenario): Promise<void> {
  for (const [sku, units] of scenario.initialStock) await setStock(pool, sku, units);
}
