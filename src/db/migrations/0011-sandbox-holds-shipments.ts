import type { Migration } from './types';

/**
 * Two more ledgers of the sandbox providers (docs/architecture.md, "Sandbox providers"), for
 * the cart domain: a warehouse's per-line holds and a carrier's shipments. Each row is one
 * effect under its idempotency key and is undone in place (`release_key`/`released_at`,
 * `cancel_key`/`cancelled_at`): an undo acts once whichever key asks, as a refund does for
 * its charge. Not unique per key, for the reason of migration 0006: a key the key store has
 * forgotten acts again, as at a real provider, and reconciliation must see it.
 */
export const sandboxHoldsShipments: Migration = {
  version: 11,
  name: 'sandbox-holds-shipments',
  up: `
    CREATE TABLE provider_holds (
      id              text        PRIMARY KEY,
      idempotency_key text        NOT NULL,
      order_id        text        NOT NULL,
      sku             text        NOT NULL,
      quantity        integer     NOT NULL CHECK (quantity > 0),
      created_at      timestamptz NOT NULL DEFAULT now(),
      release_key     text,
      released_at     timestamptz,
      CONSTRAINT provider_holds_released CHECK ((release_key IS NULL) = (released_at IS NULL))
    );
    CREATE INDEX provider_holds_order_idx ON provider_holds (order_id, sku);
    CREATE INDEX provider_holds_key_idx ON provider_holds (idempotency_key);

    CREATE TABLE provider_shipments (
      id              text        PRIMARY KEY,
      idempotency_key text        NOT NULL,
      order_id        text        NOT NULL,
      address         text        NOT NULL,
      created_at      timestamptz NOT NULL DEFAULT now(),
      cancel_key      text,
      cancelled_at    timestamptz,
      CONSTRAINT provider_shipments_cancelled CHECK ((cancel_key IS NULL) = (cancelled_at IS NULL))
    );
    CREATE INDEX provider_shipments_order_idx ON provider_shipments (order_id);
    CREATE INDEX provider_shipments_key_idx ON provider_shipments (idempotency_key);
  `,
};
