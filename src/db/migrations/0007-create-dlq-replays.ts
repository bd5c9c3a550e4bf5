import type { Migration } from './types';

/**
 * What `onceflow dlq replay` sent, one row per DLQ entry (docs/operations.md, "The DLQ"). The
 * primary key on the entry's coordinates (DLQ topic, partition, offset) is what makes a second
 * replay of an entry impossible to record, and the row lives as long as the database: unlike
 * the consumer-group offsets that held these marks before, nothing expires it while the DLQ
 * (30 days) still offers the entry.
 *
 * A row is written as `sending` before the entry goes to Kafka and becomes `sent` once the
 * broker acknowledged it, so a crash between the two leaves a visible, resumable `sending`
 * row instead of a silent gap. `adopted` rows were copied from the old consumer-group marks.
 */
export const createDlqReplays: Migration = {
  version: 7,
  name: 'create-dlq-replays',
  up: `
    CREATE TABLE dlq_replays (
      dlq_topic       text        NOT NULL,
      dlq_partition   integer     NOT NULL CHECK (dlq_partition >= 0),
      dlq_offset      bigint      NOT NULL CHECK (dlq_offset >= 0),
      -- The DLQ record's own timestamp: a DLQ topic deleted and created again reuses offsets,
      -- and a mark of the old topic must not hide the new topic's entry at the same offset.
      entry_timestamp timestamptz NOT NULL,
      state           text        NOT NULL CHECK (state IN ('sending', 'sent', 'adopted')),
      -- What was sent: the DLQ record itself, or (for a stub) the original read back from its
      -- source coordinates. NULL for adopted rows: the old marks did not say.
      sent_what       text        CHECK (sent_what IN ('entry', 'original')),
      target_topic    text,
      -- The entry's dlq-reason when it was replayed (audit; the DLQ keeps the full record).
      reason          text,
      replayed_by     text        NOT NULL,
      -- When this row was last written (the send began, or the old mark was adopted).
      recorded_at     timestamptz NOT NULL DEFAULT now(),
      -- When the broker acknowledged the send; NULL while sending and for adopted rows.
      sent_at         timestamptz,
      -- Sends begun for this entry: more than 1 only after an unconfirmed send was resumed.
      attempts        integer     NOT NULL DEFAULT 1 CHECK (attempts > 0),
      CONSTRAINT dlq_replays_entry_key PRIMARY KEY (dlq_topic, dlq_partition, dlq_offset),
      CHECK ((state = 'sent') = (sent_at IS NOT NULL)),
      CHECK ((state = 'adopted') = (sent_what IS NULL))
    );
  `,
};
