import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-util';

/**
 * Routes that read or steer more than a real provider exposes: the admin API (faults,
 * ledgers, keys, reap) and the mail log (recipients, subjects, bodies).
 */
export function isPrivilegedRoute(method: string | undefined, path: string): boolean {
  return path.startsWith('/admin/') || (method === 'GET' && path.startsWith('/v1/emails'));
}

/**
 * Throws 403 when no admin token is configured (closed by default) and 401 when the request
 * does not carry `Authorization: Bearer <token>`.
 */
export function requireAdminToken(req: IncomingMessage, token: string | undefined): void {
  if (!token) {
    throw new HttpError(403, 'admin_disabled', 'admin API is off: set PROVIDERS_ADMIN_TOKEN');
  }
  const auth = req.headers.authorization ?? '';
  const given = Buffer.from(auth.startsWith('Bearer ') ? auth.slice(7).trim() : '');
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new HttpError(401, 'unauthorized', 'bearer token required');
  }
}

/** Headers a client of the admin API sends (chaos, demo, reconcile, ops, tests). */
export function adminHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}
