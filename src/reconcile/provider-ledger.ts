/**
 * The providers' admin API as onceflow reads it: `GET /admin/ledger?orderId=…` answers the
 * charges, refunds and emails of one order (`OrderEffects` in ./facts.ts), behind
 * `Authorization: Bearer <token>`. Reconcile and `onceflow orders show` read it; the sandbox
 * providers serve it. The contract lives on the reading side, in the product, so that product
 * code never imports the harness.
 */

/** Headers a client of the admin API sends; none when no token is configured. */
export function adminHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}
