import type { Migration } from './types';

/**
 * The order claim (docs/architecture.md, "Identity and deduplication": the business claim). The
 * first run of an order inserts its row in the same transaction as the reservation; the
 * primary key on order_id is what makes every later run for the order a duplicate or an
 * order conflict. Cancellation finds the order's owner here, so the table is NOT trimmed
 * with the ledger (processed_events): an order can be cancelled as long as its claim lives.
 */
export const createOrderClaims: Migration = {
  version: 4,
  name: 'create-order-claims',
  up: `
    CREATE TABLE order_claims (
      order_id    text        PRIMARY KEY,
      -- The orderFulfillment run that owns the order's effects (its keys, its reservation).
      workflow_id text        NOT NULL,
      -- sha256 of the canonical JSON of the owner's OrderPlaced data.
      fingerprint text        NOT NULL,
      claimed_at  timestamptz NOT NULL DEFAULT now(),
      -- Set when the owner was cancelled before it reserved: the claim then only holds the
      -- order, so a later run for it ends as a duplicate instead of acting.
      cancelled_at timestamptz
    );
    CREATE INDEX order_claims_workflow_idx ON order_claims (workflow_id);
  `,
};
