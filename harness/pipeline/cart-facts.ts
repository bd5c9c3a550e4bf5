import type { Client } from '@temporalio/client';
import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import { listClaims } from '../../src/db/entity-claim-store';
import { cartCheckedOutRoute } from '../../src/domains/carts/routes';
import { CART_EVENTS_TOPIC, CARTS_DOMAIN } from '../../src/domains/carts/workflows/cart-names';
import { adminHeaders } from '../../src/reconcile/provider-ledger';
import { readPublishedEventIds } from '../../src/reconcile/sources';
import type { OrderEffects } from '../../src/reconcile/facts';
import type { CartFacts } from './invariants';
import { readEntityRuns } from './observe';
import type { DemoScenario } from './scenario';

/**
 * What the demo judges each cart of the run by: its runs, its claim, the providers' ledgers
 * under its ID (holds, charges, refunds, shipments, mails) and the CartFulfilled event IDs on
 * the cart events topic.
 */
export async function readCartFacts(
  scenario: Pick<DemoScenario, 'cartPrefix' | 'carts'>,
  deps: { client: Client; pool: pg.Pool; kafka: Kafka; providersUrl: string; adminToken?: string },
): Promise<Map<string, CartFacts>> {
  const runs = await readEntityRuns(
    deps.client,
    scenario.cartPrefix,
    cartCheckedOutRoute.workflowType,
  );
  const claims = new Map(
    (await listClaims(deps.pool, CARTS_DOMAIN, { prefix: scenario.cartPrefix })).map((c) => [
      c.entityId,
      c,
    ]),
  );
  const published = await readPublishedEventIds(deps.kafka, CART_EVENTS_TOPIC, scenario.cartPrefix);
  const cancelled = new Set(scenario.carts.cancelledCartIds);
  const out = new Map<string, CartFacts>();
  for (const [cartId, data] of scenario.carts.carts) {
    const url = `${deps.providersUrl}/admin/ledger?orderId=${encodeURIComponent(cartId)}`;
    const res = await fetch(url, { headers: adminHeaders(deps.adminToken) });
    if (!res.ok) throw new Error(`admin ledger for ${cartId}: HTTP ${res.status}`);
    const settled = claims.get(cartId)?.settled;
    out.set(cartId, {
      data,
      runs: runs.get(cartId) ?? [],
      ...(settled !== undefined ? { settled } : {}),
      cancelled: cancelled.has(cartId),
      effects: (await res.json()) as OrderEffects,
      published: published.get(cartId) ?? [],
    });
  }
  return out;
}
