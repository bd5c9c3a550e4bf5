import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { findChargeById, insertCharge, listChargesByOrder } from './charge-store';
import { errorBody, requiredParam, sendFound, sendJson } from './http-util';
import { handleIdempotentPost, type IdempotencyContext } from './idempotent-request';
import { findRefundByCharge, insertRefund, listRefundsByOrder, type Refund } from './refund-store';

const id = z.string().trim().min(1).max(300);

const chargeRequest = z.object({
  orderId: id,
  customerId: id,
  amountMinor: z.number().int().positive(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  /** Card token; `tok_chargeDeclined` is declined like Stripe's test card. */
  source: z.string().optional(),
});

const refundRequest = z.object({
  orderId: id,
  /** The charge to refund; without it, every charge of the order is refunded. */
  chargeId: id.optional(),
});

/**
 * The card-decline rule of the sandbox: customer IDs starting with `declined` and the token
 * `tok_chargeDeclined` are declined (402), so demos and tests can produce declines at will.
 */
export function isDeclined(input: { customerId: string; source?: string }): boolean {
  return /^declined/i.test(input.customerId) || input.source === 'tok_chargeDeclined';
}

function createCharge(ctx: IdempotencyContext, req: IncomingMessage, res: ServerResponse) {
  return handleIdempotentPost(ctx, req, res, {
    endpoint: 'charges',
    path: '/v1/charges',
    schema: chargeRequest,
    execute: async (client, body, key) => {
      if (isDeclined(body)) {
        return { status: 402, body: errorBody('card_declined', 'your card was declined') };
      }
      // Only the key store makes a repeat harmless: once it has forgotten the key, this is a
      // new charge, as at a real provider (the order claim must keep it from being asked).
      const charge = await insertCharge(client, {
        idempotencyKey: key,
        orderId: body.orderId,
        customerId: body.customerId,
        amountMinor: body.amountMinor,
        currency: body.currency,
      });
      return { status: 201, body: { ...charge, status: 'succeeded' } };
    },
  });
}

function createRefund(ctx: IdempotencyContext, req: IncomingMessage, res: ServerResponse) {
  return handleIdempotentPost(ctx, req, res, {
    endpoint: 'refunds',
    path: '/v1/refunds',
    schema: refundRequest,
    execute: async (client, body, key) => {
      const charges = body.chargeId
        ? [await findChargeById(client, body.chargeId)].filter((c) => c !== undefined)
        : await listChargesByOrder(client, body.orderId);
      const ofOrder = charges.filter((c) => c.orderId === body.orderId);
      if (ofOrder.length === 0) {
        // Not stored: a charge still in flight may yet appear, and then a retry must refund it.
        return {
          status: 404,
          body: errorBody('no_charge', 'no charge for this order'),
          store: false,
        };
      }
      // Every charge of the order (normally one), each fully and once: a charge refunded
      // earlier (under any key) is reported, not refunded twice.
      const refunds: Refund[] = [];
      const earlier: Refund[] = [];
      for (const charge of ofOrder) {
        const before = await findRefundByCharge(client, charge.id);
        if (before) {
          earlier.push(before);
          continue;
        }
        refunds.push(
          await insertRefund(client, {
            idempotencyKey: key,
            chargeId: charge.id,
            orderId: charge.orderId,
            amountMinor: charge.amountMinor,
          }),
        );
      }
      const view = refundView(body.orderId, refunds, earlier);
      return { status: refunds.length > 0 ? 201 : 200, body: view };
    },
  });
}

/**
 * The body of a refund response: what this request refunded (`refunds`, `chargeIds`,
 * `amountMinor`) and what had been refunded before (`earlier`). `alreadyRefunded` is true
 * when nothing was left to refund.
 */
function refundView(orderId: string, refunds: Refund[], earlier: Refund[]) {
  return {
    orderId,
    refunds,
    chargeIds: refunds.map((r) => r.chargeId),
    amountMinor: refunds.reduce((sum, r) => sum + r.amountMinor, 0),
    earlier,
    alreadyRefunded: refunds.length === 0,
  };
}

/** Routes of the payment API; returns false when the path is not a payment path. */
export async function routePayments(
  ctx: IdempotencyContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  const path = url.pathname;
  if (req.method === 'POST' && path === '/v1/charges') await createCharge(ctx, req, res);
  else if (req.method === 'POST' && path === '/v1/refunds') await createRefund(ctx, req, res);
  else if (req.method === 'GET' && path === '/v1/charges') {
    sendJson(res, 200, { data: await listChargesByOrder(ctx.pool, requiredParam(url, 'orderId')) });
  } else if (req.method === 'GET' && path.startsWith('/v1/charges/')) {
    sendFound(
      res,
      await findChargeById(ctx.pool, decodeURIComponent(path.slice(12))),
      'no such charge',
    );
  } else if (req.method === 'GET' && path === '/v1/refunds') {
    sendJson(res, 200, { data: await listRefundsByOrder(ctx.pool, requiredParam(url, 'orderId')) });
  } else return false;
  return true;
}
