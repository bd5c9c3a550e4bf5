import type { Migration } from './types';

/**
 * The service's own inventory (docs/architecture.md, "Workflows and activities"). A reservation
 * is unique on its idempotency key and commits with the stock decrement in one transaction;
 * the CHECK keeps stock from going negative even if a query were wrong.
 */
export const createInventory: Migration = {
  version: 3,
  name: 'create-inventory',
  up: `
    CREATE TABLE inventory_stock (
      sku        text        PRIMARY KEY,
      available  integer     NOT NULL CHECK (available >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE inventory_reservations (
      key         text        PRIMARY KEY,
      order_id    text        NOT NULL,
      items       jsonb       NOT NULL,
      status      text        NOT NULL CHECK (status IN ('reserved', 'released')),
      release_key text        UNIQUE,
      created_at  timestamptz NOT NULL DEFAULT now(),
      released_at timestamptz
    );
    CREATE INDEX inventory_reservations_order_idx ON inventory_reservations (order_id);
  `,
};
