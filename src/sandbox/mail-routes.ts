import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { findEmailById, insertEmail, listEmailsByKey, listEmailsByOrder } from './email-store';
import { fingerprintRequest, HttpError, readJson, sendJson } from './http-util';
import { handleIdempotentRequest, type IdempotencyContext } from './idempotent-request';
import { idempotencyKeyOf, parseBody } from './payment-routes';

const emailRequest = z.object({
  to: z.string().trim().min(3).max(320),
  subject: z.string().min(1).max(500),
  body: z.string().max(100_000),
  /** Lets reconciliation count emails per order. */
  orderId: z.string().trim().min(1).max(300).optional(),
});

async function sendEmail(ctx: IdempotencyContext, req: IncomingMessage, res: ServerResponse) {
  const key = idempotencyKeyOf(req);
  const raw = await readJson(req);
  const body = parseBody(emailRequest, raw);
  await handleIdempotentRequest(ctx, res, {
    endpoint: 'emails',
    key,
    fingerprint: fingerprintRequest('POST', '/v1/emails', raw),
    execute: async (client) => {
      // The ledger outlives reaped keys: a key seen again after reaping is not re-sent.
      const [existing] = await listEmailsByKey(client, key);
      const email =
        existing ??
        (await insertEmail(client, {
          idempotencyKey: key,
          orderId: body.orderId ?? null,
          to: body.to,
          subject: body.subject,
          body: body.body,
        }));
      return { status: 202, body: { id: email.id, orderId: email.orderId, status: 'queued' } };
    },
  });
}

/** Routes of the mail API; returns false when the path is not a mail path. */
export async function routeMail(
  ctx: IdempotencyContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  const path = url.pathname;
  if (req.method === 'POST' && path === '/v1/emails') await sendEmail(ctx, req, res);
  else if (req.method === 'GET' && path === '/v1/emails') {
    const orderId = url.searchParams.get('orderId');
    if (!orderId) throw new HttpError(400, 'invalid_request', 'orderId is required');
    sendJson(res, 200, { data: await listEmailsByOrder(ctx.pool, orderId) });
  } else if (req.method === 'GET' && path.startsWith('/v1/emails/')) {
    const email = await findEmailById(ctx.pool, decodeURIComponent(path.slice(11)));
    if (!email) throw new HttpError(404, 'not_found', 'no such email');
    sendJson(res, 200, email);
  } else return false;
  return true;
}
