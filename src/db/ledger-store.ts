import type pg from 'pg';
import { schemaOfPool } from './pool';
import { qualifyTable } from '../config/schema-name';

/**
 * The bridge's ledger of processed identities, table `processed_events` (migration 0001;
 * docs/architecture.md, "Identity and deduplication"). The only code that queries the table: the
 * bridge, the cancellation lookup, reconcile, the reaper and fuzz all come here. Every statement
 * is schema-qualified with the injected schema, so tests run against a schema of their own, and
 * takes `$n` parameters only.
 */

export interface LedgerStoreOptions {
  /**
   * Schema holding processed_events. Default: the schema on the pool's search_path when
   * createPool made the pool (src/db/pool.ts), else `public`.
   */
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

/** A ledger row as reconcile compares it with topics and Temporal. */
export interface LedgerEntry {
  identity: string;
  eventType: string;
  aggregateId: string;
  workflowId: string;
}

/** Where in Kafka a recorded event came from. */
export interface LedgerCoordinate {
  partition: number;
  /** Kafka offset (int64 as a string). */
  offset: string;
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

export class LedgerStore {
  readonly schema: string;
  private readonly table: string;
  private readonly reapBatchSize: number;

  constructor(
    private readonly pool: pg.Pool,
    options: LedgerStoreOptions = {},
  ) {
    this.schema = options.schema ?? schemaOfPool(pool) ?? 'public';
    this.table = qualifyTable(this.schema, 'processed_events');
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
    return (await this.recordAllStarted([row], 'recordStarted')) === 1;
  }

  /**
   * Records many processed identities in one statement (the bridge writes a batch's starts
   * together: one round trip and one commit instead of one per message). The primary key
   * detects duplicates as for one row: rows whose identity is already there are skipped.
   * Returns how many rows this call inserted. The rows go as one array per column, so the
   * statement has 12 parameters whatever the row count (Postgres allows 65535).
   */
  async recordAllStarted(
    rows: readonly LedgerRow[],
    operation = 'recordAllStarted',
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const column = <T>(pick: (row: LedgerRow) => T) => rows.map(pick);
    const { rowCount } = await this.run(
      operation,
      `INSERT INTO ${this.table} (identity, event_type, event_id, aggregate_id, aggregate_version,
         fingerprint, workflow_id, run_id, source_topic, source_partition, source_offset,
         first_seen_at)
       SELECT identity, event_type, event_id, aggregate_id, aggregate_version, fingerprint,
              workflow_id, run_id, source_topic, source_partition, source_offset,
              COALESCE(first_seen_at, now())
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                     $7::text[], $8::text[], $9::text[], $10::integer[], $11::bigint[],
                     $12::timestamptz[])
           AS r(identity, event_type, event_id, aggregate_id, aggregate_version, fingerprint,
                workflow_id, run_id, source_topic, source_partition, source_offset,
                first_seen_at)
       ON CONFLICT (identity) DO NOTHING`,
      [
        column((r) => r.identity),
        column((r) => r.eventType),
        column((r) => r.eventId),
        column((r) => r.aggregateId),
        column((r) => r.aggregateVersion ?? null),
        column((r) => r.fingerprint),
        column((r) => r.workflowId),
        column((r) => r.runId ?? null),
        column((r) => r.sourceTopic),
        column((r) => r.sourcePartition),
        column((r) => r.sourceOffset),
        column((r) => r.firstSeenAt ?? null),
      ],
    );
    return rowCount ?? 0;
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
   * The workflow of the first recorded event of `eventType` about an aggregate (earliest
   * first_seen_at, then identity), e.g. the first OrderPlaced run of an order.
   */
  async findFirstWorkflow(aggregateId: string, eventType: string): Promise<string | undefined> {
    const { rows } = await this.run<{ workflow_id: string }>(
      'findFirstWorkflow',
      `SELECT workflow_id FROM ${this.table}
        WHERE aggregate_id = $1 AND event_type = $2
        ORDER BY first_seen_at, identity LIMIT 1`,
      [aggregateId, eventType],
    );
    return rows[0]?.workflow_id;
  }

  /** Rows whose aggregate ID starts with `prefix` ('' = all). */
  async listByAggregatePrefix(prefix: string): Promise<LedgerEntry[]> {
    const { rows } = await this.run<{
      identity: string;
      event_type: string;
      aggregate_id: string;
      workflow_id: string;
    }>(
      'listByAggregatePrefix',
      `SELECT identity, event_type, aggregate_id, workflow_id
         FROM ${this.table}
        WHERE left(aggregate_id, length($1)) = $1`,
      [prefix],
    );
    return rows.map((r) => ({
      identity: r.identity,
      eventType: r.event_type,
      aggregateId: r.aggregate_id,
      workflowId: r.workflow_id,
    }));
  }

  /** Kafka partition and offset of every row recorded from `topic`. */
  async listCoordinates(topic: string): Promise<LedgerCoordinate[]> {
    const { rows } = await this.run<{ p: number; o: string }>(
      'listCoordinates',
      `SELECT source_partition AS p, source_offset AS o FROM ${this.table} WHERE source_topic = $1`,
      [topic],
    );
    return rows.map((r) => ({ partition: r.p, offset: r.o }));
  }

  /**
   * How many rows there are, the seconds from the first row's first_seen_at to the last one's
   * (the bridge bench's rate excludes start-up this way; 0 with fewer than two rows) and how
   * many transactions wrote them (distinct `xmin`: one per INSERT); with `aggregatePrefix`,
   * of the rows whose aggregate ID starts with it only.
   */
  async summarize(
    aggregatePrefix = '',
  ): Promise<{ rows: number; firstSeenSpanSeconds: number; writes: number }> {
    const { rows } = await this.run<{ n: string; seconds: string | null; writes: string }>(
      'summarize',
      `SELECT count(*) AS n,
              extract(epoch FROM max(first_seen_at) - min(first_seen_at)) AS seconds,
              count(DISTINCT xmin::text) AS writes
         FROM ${this.table}
        WHERE starts_with(aggregate_id, $1)`,
      [aggregatePrefix],
    );
    return {
      rows: Number(rows[0]!.n),
      firstSeenSpanSeconds: Number(rows[0]!.seconds ?? 0),
      writes: Number(rows[0]!.writes),
    };
  }

  /** Workflow IDs of every row (for cleaning up the workflows a test or bench started). */
  async listWorkflowIds(): Promise<string[]> {
    const { rows } = await this.run<{ workflow_id: string }>(
      'listWorkflowIds',
      `SELECT workflow_id FROM ${this.table}`,
      [],
    );
    return rows.map((r) => r.workflow_id);
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

  /**
   * Deletes the rows of these workflow IDs, as the reaper does once their age passes: what
   * the chaos run's time-passes fault forgets for the runs it deleted from Temporal, never the
   * row of an order still in flight (a real reaper's retention, days, outlasts any order).
   * Returns the number deleted.
   */
  async reapWorkflows(workflowIds: readonly string[]): Promise<number> {
    let total = 0;
    for (let i = 0; i < workflowIds.length; i += this.reapBatchSize) {
      const { rowCount } = await this.run(
        'reapWorkflows',
        `DELETE FROM ${this.table} WHERE workflow_id = ANY($1::text[])`,
        [workflowIds.slice(i, i + this.reapBatchSize)],
      );
      total += rowCount ?? 0;
    }
    return total;
  }
}

/** A ledger store over a pool; see LedgerStoreOptions for the schema. */
export function createLedgerStore(pool: pg.Pool, options: LedgerStoreOptions = {}): LedgerStore {
  return new LedgerStore(pool, options);
}
