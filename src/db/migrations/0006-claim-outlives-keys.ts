import type { Migration } from './types';

/**
 * The order claim becomes the memory that outlives every other one (docs/orders.md, "Which
 * memory holds what"): the ledger is reaped, Temporal's retention deletes runs, a provider
 * forgets its idempotency keys after a day, and then a re-read of the source topic starts a
 * new run under the very same workflow ID. Only the claim can tell that run from the owner:
 *
 * - `run_id`: the owning run's first execution run ID (workflowInfo().firstExecutionRunId,
 *   kept by Temporal across activity and workflow retries, continue-as-new and reset). NULL
 *   on rows written before this migration: see judgeClaim in src/db/order-claim-store.ts for
 *   what such a row means.
 * - `settled` / `settled_at`: how the order ended, written by its owner (or, `refunded`, by the
 *   cancellation that unwound it after it closed). A cancelled-before-reserving claim of an
 *   older worker (`cancelled_at`) is settled `cancelled` here, as the current code writes it.
 * - `reopened_at`: the last time the owner's own chain (a Temporal reset) asked again after
 *   the order had settled, so `orders show` can say an operator made it run again.
 *
 * The sandbox providers' ledgers stop being unique per idempotency key: a real provider that
 * forgot a key charges (or mails) again when it sees the key a second time, and the sandbox
 * must do the same or it would hide exactly the double effect the claim is there to prevent.
 * Lookups by key keep an index.
 */
export const claimOutlivesKeys: Migration = {
  version: 6,
  name: 'claim-outlives-keys',
  up: `
    ALTER TABLE order_claims
      ADD COLUMN run_id      text,
      ADD COLUMN settled     text
        CHECK (settled IN ('completed', 'rejected', 'declined', 'cancelled', 'refunded')),
      ADD COLUMN settled_at  timestamptz,
      ADD COLUMN reopened_at timestamptz,
      ADD CONSTRAINT order_claims_settled_at CHECK ((settled IS NULL) = (settled_at IS NULL));
    UPDATE order_claims SET settled = 'cancelled', settled_at = cancelled_at
     WHERE cancelled_at IS NOT NULL;

    ALTER TABLE provider_charges DROP CONSTRAINT provider_charges_idempotency_key_key;
    CREATE INDEX provider_charges_key_idx ON provider_charges (idempotency_key);
    ALTER TABLE provider_emails DROP CONSTRAINT provider_emails_idempotency_key_key;
    CREATE INDEX provider_emails_key_idx ON provider_emails (idempotency_key);
  `,
};
