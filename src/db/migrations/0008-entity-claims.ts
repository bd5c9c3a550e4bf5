import type { Migration } from './types';

/**
 * The business claim becomes the engine's, for every domain (docs/architecture.md, "Identity
 * and deduplication"): `entity_claims` is keyed by (domain, entity ID) and holds what
 * `order_claims` held (owning workflow and first run, payload fingerprint, cancellation before
 * the claiming step, settlement, reopening by a reset). The order claims move in as domain
 * `orders`, run IDs, settlements and legacy rows without a run ID unchanged, so the judge
 * rules of migration 0006 keep applying to them. `settled` is a domain's word (orders:
 * completed, rejected, declined, cancelled, refunded), so it is not checked against a list
 * here. order_claims is dropped: its only readers are in this repository and read
 * entity_claims now; a worker of the previous version still running during a deploy fails
 * its claim statement (table missing), retries and parks, and never claims twice.
 */
export const entityClaims: Migration = {
  version: 8,
  name: 'entity-claims',
  up: `
    CREATE TABLE entity_claims (
      domain       text        NOT NULL CHECK (domain ~ '^[a-z][a-z0-9-]{0,62}$'),
      entity_id    text        NOT NULL,
      -- The run that owns the entity's effects (its keys, its claim-bound writes).
      workflow_id  text        NOT NULL,
      run_id       text,
      -- sha256 of the canonical JSON of the owner's event data.
      fingerprint  text        NOT NULL,
      claimed_at   timestamptz NOT NULL DEFAULT now(),
      cancelled_at timestamptz,
      settled      text,
      settled_at   timestamptz,
      reopened_at  timestamptz,
      PRIMARY KEY (domain, entity_id),
      CONSTRAINT entity_claims_settled_at CHECK ((settled IS NULL) = (settled_at IS NULL))
    );
    CREATE INDEX entity_claims_workflow_idx ON entity_claims (workflow_id);
    INSERT INTO entity_claims
      (domain, entity_id, workflow_id, run_id, fingerprint, claimed_at, cancelled_at,
       settled, settled_at, reopened_at)
    SELECT 'orders', order_id, workflow_id, run_id, fingerprint, claimed_at, cancelled_at,
           settled, settled_at, reopened_at
      FROM order_claims;
    DROP TABLE order_claims;
  `,
};
