import type { Migration } from './types';

/**
 * The bridge's ledger of processed event identities (docs/architecture.md, "Identity and
 * deduplication"). It makes the dedup window independent of Temporal's retention; the unique
 * primary key on identity is what detects a duplicate.
 */
export const createLedger: Migration = {
  version: 1,
  name: 'create-ledger',
  up: `
    CREATE TABLE processed_events (
      identity        text        PRIMARY KEY,
      event_type      text        NOT NULL,
      event_id        text        NOT NULL,
      aggregate_id    text        NOT NULL,
      -- bigint: producers may version with large counters (epoch millis, log sequence numbers).
      aggregate_version bigint    CHECK (aggregate_version > 0),
      fingerprint     text        NOT NULL,
      workflow_id     text        NOT NULL,
      run_id          text,
      source_topic    text        NOT NULL,
      source_partition integer    NOT NULL,
      source_offset   bigint      NOT NULL,
      first_seen_at   timestamptz NOT NULL DEFAULT now()
    );
    -- The reaper deletes by age.
    CREATE INDEX processed_events_first_seen_idx ON processed_events (first_seen_at);
    -- Stale-version detection asks for the highest version applied per aggregate.
    CREATE INDEX processed_events_aggregate_idx
      ON processed_events (aggregate_id, aggregate_version);
  `,
};
