import type { Migration } from './types';

/**
 * One refund request may refund several charges of an order (normally there is one; a second
 * can exist when something charged under another key). Each refunded charge is its own row
 * under the request's key, so the key is no longer unique on its own: (key, charge) is. The
 * UNIQUE on charge_id stays the last line against refunding a charge twice.
 */
export const refundEveryCharge: Migration = {
  version: 5,
  name: 'refund-every-charge',
  up: `
    ALTER TABLE provider_refunds DROP CONSTRAINT provider_refunds_idempotency_key_key;
    ALTER TABLE provider_refunds
      ADD CONSTRAINT provider_refunds_key_charge_key UNIQUE (idempotency_key, charge_id);
  `,
};
