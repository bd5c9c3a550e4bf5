import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { findEmailById, insertEmail, listEmailsByOrder } from './email-store';
import { requiredParam, sendFound, sendJson } from './http-util';
import { handleIdempotentPost, type IdempotencyContext } from './idempotent-request';

const emailRequest = z.object({
  to: z.string().trim().min(3).max(320),
  subject: z.string().min(1).max(500),
  body: z.string().max(100_000),
  /** Lets reconciliation count emails per order. */
  orderId: z.string().trim().min(1).max(300).optional(),
});

function sendEmail(ctx: IdempotencyContext, req: IncomingMessage, res: ServerResponse) {
  return handleIdempotentPost(ctx, req, res, {
    endpoint: 'emails',
    path: '/v1/emails',
    schema: emailRequest,
    execute: async (client, body, key) => {
      // Only the key store makes a repeat harmless: a forgotten key sends the mail again.
      const email = await insertEmail(client, {
        idempotencyKey: key,
        orderId: body.orderId ?? null,
        to: body.to,
        subject: body.subject,
        body: body.body,
      });
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
    sendJson(res, 200, { data: await listEmailsByOrder(ctx.pool, requiredParam(url, 'orderId')) });
  } else if (req.method === 'GET' && path.startsWith('/v1/emails/')) {
    sendFound(
      res,
      await findEmailById(ctx.pool, decodeURIComponent(path.slice(11))),
      'no such email',
    );
  } else return false;
  return true;
}
