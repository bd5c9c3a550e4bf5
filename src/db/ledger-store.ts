import type pg from 'pg';

/**
 * The bridge's ledger of processed identities, table `processed_events` (migration 0001;
 * docs/architecture.md, "Identity and deduplication"). Every statement is schema-qualified with the
 * injected schema, so tests run against a schema of their own, and takes `$n` parameters only.
 */

export interface LedgerStoreOptions {
  /** Schema holding processed_events. Default: `public`. */
  schema?: string;
  /** Rows deleted per statement by reapOlderThan; keeps each lock short. Default: 5000. */
  reapBatchSize?: number;
}

/** What the ledger knows about one identity. */
export interface KnownEvent {
  eventType: string;
  fingerprint: string;
  workflowId: string;
  /** Null when the start was deduplicated by Temporal and the run ID was not learnt. */
  runId: string | null;
}

/** One row, written after a successful start (or a start Temporal deduplicated). */
export interface LedgerRow {
  identity: string;
  eventType: string;
  eventId: string;
  aggregateId: string;
  aggregateVersion?: number;
  fingerprint: string;
  workflowId: string;
  runId?: string | null;
  sourceTopic: string;
  sourcePartition: number;
  /** Kafka offset (int64 as a string, as kafkajs gives it). */
  sourceOffset: string;
  /** Default: the database's now(). Tests set old dates to exercise the reaper. */
  firstSeenAt?: Date;
}

/** Thrown when a ledger statement fails; names the operation, keeps the pg error as cause. */
export class LedgerStoreError extends Error {
  override readonly name = 'LedgerStoreError';
  constructor(
    readonly operation: string,
    readonly schema: string,
    cause: unknown,
  ) {
    super(`ledger ${operation} in schema ${schema} failed: ${(cause as Error)?.message ?? cause}`, {
      cause,
    });
  }
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

export class LedgerStore {
  readonly schema: string;
  private readonly table: string;
  private readonly reapBatchSize: number;

  constructor(
    private readonly pool: pg.Pool,
    options: LedgerStoreOptions = {},
  ) {
    this.schema = options.schema ?? 'public';
    // Identifiers cannot be parameters; the strict pattern is what keeps this injection-safe.
    if (!SCHEMA_NAME.test(this.schema)) throw new Error(`invalid schema name: ${this.schema}`);
    this.table = `"${this.schema}".processed_events`;
    this.reapBatchSize = options.reapBatchSize ?? 5000;
  }

  private async run<R extends pg.QueryResultRow>(
    operation: string,
    text: string,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (err) {
      throw new LedgerStoreError(operation, this.schema, err);
    }
  }

  /** Looks up a whole batch of identities in one query; unknown identities are absent. */
  async findKnown(identities: readonly string[]): Promise<Map<string, KnownEvent>> {
    const known = new Map<string, KnownEvent>();
    if (identities.length === 0) return known;
    const { rows } = await this.run<{
      identity: string;
      event_type: string;
      fingerprint: string;
      workflow_id: string;
      run_id: string | null;
    }>(
      'findKnown',
      `SELECT identity, event_type, fingerprint, workflow_id, run_id
         FROM ${this.table} WHERE identity = ANY($1::text[])`,
      [[...new Set(identities)]],
    );
    for (const r of rows) {
      known.set(r.identity, {
        eventType: r.event_type,
        fingerprint: r.fingerprint,
        workflowId: r.workflow_id,
        runId: r.run_id,
      });
    }
    return known;
  }

  /**
   * Records a processed identity. The primary key detects a duplicate: returns false when the
   * identity was already there (a concurrent bridge won), true when this call inserted it.
   */
  async recordStarted(row: LedgerRow): Promise<boolean> {
    const { rowCount } = await this.run(
      'recordStarted',
      `INSERT INTO ${this.table} (identity, event_type, event_id, aggregate_id, aggregate_version,
         fingerprint, workflow_id, run_id, source_topic, source_partition, source_offset,
         first_seen_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12::timestamptz, now()))
       ON CONFLICT (identity) DO NOTHING`,
      [
        row.identity,
        row.eventType,
        row.eventId,
        row.aggregateId,
        row.aggregateVersion ?? null,
        row.fingerprint,
        row.workflowId,
        row.runId ?? null,
        row.sourceTopic,
        row.sourcePartition,
        row.sourceOffset,
        row.firstSeenAt ?? null,
      ],
    );
    return rowCount === 1;
  }

  /**
   * The highest recorded version per aggregate, over all its event types (an aggregate's
   * version counts its changes, whatever their type), for a whole batch in one query.
   * Aggregates without a versioned row are absent.
   */
  async highestVersions(aggregateIds: readonly string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    if (aggregateIds.length === 0) return result;
    const { rows } = await this.run<{ aggregate_id: string; max: string }>(
      'highestVersions',
      `SELECT aggregate_id, max(aggregate_version)::text AS max
         FROM ${this.table}
        WHERE aggregate_id = ANY($1::text[]) AND aggregate_version IS NOT NULL
        GROUP BY aggregate_id`,
      [[...new Set(aggregateIds)]],
    );
    // bigint arrives as text; versions are checked to be safe integers on the way in.
    for (const r of rows) result.set(r.aggregate_id, Number(r.max));
    return result;
  }

  /**
   * Deletes rows first seen more than `days` days ago, in batches so a large backlog never
   * holds long locks against the bridge's inserts. Returns the number deleted.
   */
  async reapOlderThan(days: number): Promise<number> {
    if (!Number.isFinite(days) || days < 0) throw new RangeError(`days must be >= 0, got ${days}`);
    let total = 0;
    for (;;) {
      const { rowCount } = await this.run(
        'reapOlderThan',
        `DELETE FROM ${this.table} WHERE identity IN (
           SELECT identity FROM ${this.table}
            WHERE first_seen_at < now() - make_interval(secs => $1::double precision)
            LIMIT $2)`,
        [days * 86_400, this.reapBatchSize],
      );
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < this.reapBatchSize) return total;
    }
  }
}

/** A ledger store over a pool; see LedgerStoreOptions for the schema. */
export function createLedgerStore(pool: pg.Pool, options: LedgerStoreOptions = {}): LedgerStore {
  return new LedgerStore(pool, options);
}
