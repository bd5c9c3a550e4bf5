import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { listChargesByKey, listChargesByOrder } from './charge-store';
import { listEmailsByKey, listEmailsByOrder } from './email-store';
import { FAULT_ENDPOINTS } from './faults';
import { listHoldsByKey, listHoldsByOrder } from './hold-store';
import { HttpError, parseBody, readJson, sendJson } from './http-util';
import type { IdempotencyContext } from './idempotent-request';
import { expireKeys, findKey, reapExpiredKeys } from './key-store';
import { listRefundsByKey, listRefundsByOrder } from './refund-store';
import { listShipmentsByKey, listShipmentsByOrder } from './shipment-store';

/** Charges, refunds, emails, holds and shipments of one order or one idempotency key. */
export interface LedgerView {
  charges: Awaited<ReturnType<typeof listChargesByOrder>>;
  refunds: Awaited<ReturnType<typeof listRefundsByOrder>>;
  emails: Awaited<ReturnType<typeof listEmailsByOrder>>;
  holds: Awaited<ReturnType<typeof listHoldsByOrder>>;
  shipments: Awaited<ReturnType<typeof listShipmentsByOrder>>;
}

async function readLedger(ctx: IdempotencyContext, url: URL): Promise<LedgerView> {
  const orderId = url.searchParams.get('orderId');
  const key = url.searchParams.get('key');
  if (orderId) {
    const [charges, refunds, emails, holds, shipments] = await Promise.all([
      listChargesByOrder(ctx.pool, orderId),
      listRefundsByOrder(ctx.pool, orderId),
      listEmailsByOrder(ctx.pool, orderId),
      listHoldsByOrder(ctx.pool, orderId),
      listShipmentsByOrder(ctx.pool, orderId),
    ]);
    return { charges, refunds, emails, holds, shipments };
  }
  if (key) {
    const [charges, refunds, emails, holds, shipments] = await Promise.all([
      listChargesByKey(ctx.pool, key),
      listRefundsByKey(ctx.pool, key),
      listEmailsByKey(ctx.pool, key),
      listHoldsByKey(ctx.pool, key),
      listShipmentsByKey(ctx.pool, key),
    ]);
    return { charges, refunds, emails, holds, shipments };
  }
  throw new HttpError(400, 'invalid_request', 'orderId or key is required');
}

/** Body of POST /admin/keys/expire: which finished keys to forget now (none = all). */
const expireRequest = z
  .object({
    scope: z.enum(FAULT_ENDPOINTS).optional(),
    keys: z.array(z.string().min(1).max(255)).max(20_000).optional(),
    prefix: z.string().min(1).max(255).optional(),
  })
  .strict();

/**
 * Admin API for tests, chaos runs and reconciliation: faults (GET/PUT /admin/faults), ledger
 * reads (GET /admin/ledger?orderId=… or ?key=…), a key row (GET /admin/keys?scope=…&key=…),
 * reaping (POST /admin/reap) and forgetting keys now (POST /admin/keys/expire with
 * `{ scope?, keys?, prefix? }`, answering `{ expired }`). Not part of what a real provider
 * offers.
 */
export async function routeAdmin(
  ctx: IdempotencyContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  const path = url.pathname;
  if (path === '/admin/faults' && req.method === 'GET') {
    sendJson(res, 200, ctx.faults.describe());
  } else if (path === '/admin/faults' && req.method === 'PUT') {
    try {
      ctx.faults.configure((await readJson(req)) as never);
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new HttpError(400, 'invalid_request', (err as Error).message);
    }
    sendJson(res, 200, ctx.faults.describe());
  } else if (path === '/admin/ledger' && req.method === 'GET') {
    sendJson(res, 200, await readLedger(ctx, url));
  } else if (path === '/admin/keys' && req.method === 'GET') {
    const scope = url.searchParams.get('scope');
    const key = url.searchParams.get('key');
    if (!scope || !key) throw new HttpError(400, 'invalid_request', 'scope and key are required');
    const row = await findKey(ctx.pool, { scope, key });
    if (!row) throw new HttpError(404, 'not_found', 'no such key');
    sendJson(res, 200, row);
  } else if (path === '/admin/reap' && req.method === 'POST') {
    sendJson(res, 200, { reaped: await reapExpiredKeys(ctx.pool) });
  } else if (path === '/admin/keys/expire' && req.method === 'POST') {
    const body = parseBody(expireRequest, await readJson(req));
    sendJson(res, 200, { expired: await expireKeys(ctx.pool, body) });
  } else return false;
  return true;
}
