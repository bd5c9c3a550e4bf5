import type { Migration } from './types';

/**
 * The sandbox providers' own tables (docs/architecture.md, "Sandbox providers"): a Stripe-style
 * idempotency key store and the ledgers reconciliation counts. Unique constraints on the
 * idempotency key of every ledger row are the last line against a double effect, even if
 * two requests for one key both got past the key store (lease takeover).
 */
export const createProviderSandbox: Migration = {
  version: 2,
  name: 'create-provider-sandbox',
  up: `
    CREATE TABLE provider_idempotency_keys (
      scope            text        NOT NULL,
      key              text        NOT NULL,
      fingerprint      text        NOT NULL,
      state            text        NOT NULL CHECK (state IN ('started', 'completed', 'failed')),
      lease_token      text,
      lease_expires_at timestamptz,
      response_status  integer,
      response_body    jsonb,
      created_at       timestamptz NOT NULL DEFAULT now(),
      expires_at       timestamptz NOT NULL,
      PRIMARY KEY (scope, key)
    );
    -- The reaper deletes by expiry.
    CREATE INDEX provider_idempotency_keys_expires_idx ON provider_idempotency_keys (expires_at);

    CREATE TABLE provider_charges (
      id              text        PRIMARY KEY,
      idempotency_key text        NOT NULL UNIQUE,
      order_id        text        NOT NULL,
      customer_id     text        NOT NULL,
      amount_minor    bigint      NOT NULL CHECK (amount_minor > 0),
      currency        text        NOT NULL,
      created_at      timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX provider_charges_order_idx ON provider_charges (order_id);

    CREATE TABLE provider_refunds (
      id              text        PRIMARY KEY,
      idempotency_key text        NOT NULL UNIQUE,
      -- Full refunds only: one refund per charge, whatever key asked for it.
      charge_id       text        NOT NULL UNIQUE REFERENCES provider_charges (id),
      order_id        text        NOT NULL,
      amount_minor    bigint      NOT NULL CHECK (amount_minor > 0),
      created_at      timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX provider_refunds_order_idx ON provider_refunds (order_id);

    CREATE TABLE provider_emails (
      id              text        PRIMARY KEY,
      idempotency_key text        NOT NULL UNIQUE,
      order_id        text,
      to_address      text        NOT NULL,
      subject         text        NOT NULL,
      body            text        NOT NULL,
      created_at      timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX provider_emails_order_idx ON provider_emails (order_id);
  `,
};
