import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { errorBody } from './http-util';
import { handleIdempotentPost, type IdempotencyContext } from './idempotent-request';
import { insertHold, releaseHolds } from './hold-store';
import { cancelShipments, insertShipment } from './shipment-store';

const id = z.string().trim().min(1).max(300);

const holdRequest = z.object({
  orderId: id,
  sku: id,
  quantity: z.number().int().positive().max(1_000_000),
});

const releaseRequest = z.object({
  orderId: id,
  /** The line to release; without it, every hold of the order. */
  sku: id.optional(),
});

const shipmentRequest = z.object({ orderId: id, address: z.string().trim().min(1).max(500) });

const cancelRequest = z.object({ orderId: id });

function createHold(ctx: IdempotencyContext, req: IncomingMessage, res: ServerResponse) {
  return handleIdempotentPost(ctx, req, res, {
    endpoint: 'holds',
    path: '/v1/holds',
    schema: holdRequest,
    execute: async (client, body, key) => {
      // Only the key store makes a repeat harmless: a forgotten key holds the line again.
      const hold = await insertHold(client, { idempotencyKey: key, ...body });
      return { status: 201, body: { ...hold, status: 'held' } };
    },
  });
}

function releaseHold(ctx: IdempotencyContext, req: IncomingMessage, res: ServerResponse) {
  return handleIdempotentPost(ctx, req, res, {
    endpoint: 'holds',
    path: '/v1/holds/release',
    schema: releaseRequest,
    execute: async (client, body, key) => {
      const { released, earlier } = await releaseHolds(client, { ...body, releaseKey: key });
      if (released.length + earlier.length === 0) {
        // Not stored: a hold still in flight may yet appear, and then a retry must release it.
        return {
          status: 404,
          body: errorBody('no_hold', 'no hold for this order and line'),
          store: false,
        };
      }
      // Each hold once, whichever key asks: one released before is reported, not again.
      return {
        status: released.length > 0 ? 201 : 200,
        body: { orderId: body.orderId, released, earlier, alreadyReleased: released.length === 0 },
      };
    },
  });
}

function createShipment(ctx: IdempotencyContext, req: IncomingMessage, res: ServerResponse) {
  return handleIdempotentPost(ctx, req, res, {
    endpoint: 'shipments',
    path: '/v1/shipments',
    schema: shipmentRequest,
    execute: async (client, body, key) => {
      const shipment = await insertShipment(client, { idempotencyKey: key, ...body });
      return { status: 201, body: { ...shipment, status: 'booked' } };
    },
  });
}

function cancelShipment(ctx: IdempotencyContext, req: IncomingMessage, res: ServerResponse) {
  return handleIdempotentPost(ctx, req, res, {
    endpoint: 'shipments',
    path: '/v1/shipments/cancel',
    schema: cancelRequest,
    execute: async (client, body, key) => {
      const { cancelled, earlier } = await cancelShipments(client, { ...body, cancelKey: key });
      if (cancelled.length + earlier.length === 0)
        return {
          status: 404,
          body: errorBody('no_shipment', 'no shipment for this order'),
          store: false,
        };
      return {
        status: cancelled.length > 0 ? 201 : 200,
        body: {
          orderId: body.orderId,
          cancelled,
          earlier,
          alreadyCancelled: cancelled.length === 0,
        },
      };
    },
  });
}

/**
 * Routes of the warehouse and carrier APIs (a line's hold and its release, a shipment and its
 * cancellation), each undo acting once however often or under whichever key it is asked;
 * returns false when the path is not theirs. Read back through GET /admin/ledger.
 */
export async function routeWarehouse(
  ctx: IdempotencyContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  if (req.method !== 'POST') return false;
  const path = url.pathname;
  if (path === '/v1/holds') await createHold(ctx, req, res);
  else if (path === '/v1/holds/release') await releaseHold(ctx, req, res);
  else if (path === '/v1/shipments') await createShipment(ctx, req, res);
  else if (path === '/v1/shipments/cancel') await cancelShipment(ctx, req, res);
  else return false;
  return true;
}
