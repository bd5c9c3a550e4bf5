import type { LedgerRow } from '../db/ledger-store';
import type { BatchLedger } from './ledger-view';

/** How the bridge's ledger rows are grouped into INSERTs. */
export interface LedgerWritesOptions {
  /**
   * How long the first pending row waits for others (of any partition) to share its INSERT.
   * Short against a start's own latency, so a row is visible to other readers (reconcile, a
   * cancellation's owner lookup) soon after its start; long enough that a busy bridge writes
   * tens of rows per INSERT: each INSERT is a commit in Postgres and a round trip in the
   * bridge, which cost more than the rows themselves. Default: 50 ms.
   * @example { maxDelayMs: 20 } // rows visible sooner, more INSERTs
   */
  maxDelayMs?: number;
  /**
   * Rows per INSERT at most; when this many are pending they are written at once.
   * Default: 500.
   * @example { maxRows: 100 }
   */
  maxRows?: number;
}

/** What a shared INSERT did with a member's rows: written, or failed with `error`. */
export type SharedWriteResult = { written: true } | { written: false; error: unknown };

/** One writer of rows into the queue: a partition's batch (ledger-writes.ts). */
export interface LedgerWriteMember<T> {
  /** The rows added since the last hand-over, each with what the member knows it by. */
  takePending(): Array<{ ref: T; row: LedgerRow }>;
  /** The INSERT those rows went out in settled. */
  settle(rows: Array<{ ref: T; row: LedgerRow }>, result: SharedWriteResult): void;
}

/**
 * The bridge's ledger rows of every partition, written together: one multi-row INSERT per
 * flush whatever partition a row came from, at most one in flight, flushed `maxDelayMs` after
 * the first pending row, at `maxRows`, and whenever a member asks (flush). How many rows
 * share an INSERT then follows the bridge's whole start rate, not one partition's.
 *
 * The queue makes one try per INSERT and reports the outcome to each member; a member whose
 * rows failed writes them again on its own (ledger-writes.ts: retries while its partition is
 * ours, row by row for data the database refuses), so one partition's trouble never holds
 * another's rows and every guarantee stays per partition.
 */
export class LedgerWriteQueue {
  private readonly waiting = new Set<LedgerWriteMember<unknown>>();
  private pendingRows = 0;
  private timer: NodeJS.Timeout | undefined;
  private last: Promise<void> = Promise.resolve();
  private readonly maxDelayMs: number;
  private readonly maxRows: number;

  constructor(
    private readonly ledger: Pick<BatchLedger, 'recordAllStarted'>,
    options: LedgerWritesOptions = {},
  ) {
    this.maxDelayMs = options.maxDelayMs ?? 50;
    this.maxRows = Math.max(1, options.maxRows ?? 500);
  }

  /** A member added a row: it goes out with the next flush. */
  notePending<T>(member: LedgerWriteMember<T>): void {
    this.waiting.add(member as LedgerWriteMember<unknown>);
    if (++this.pendingRows >= this.maxRows) {
      void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.maxDelayMs);
      // A pending flush alone must not keep a stopping process alive: members flush their
      // own rows before they commit.
      this.timer.unref();
    }
  }

  /**
   * Writes every row pending now, in one INSERT after the ones in flight. Resolves once it and
   * every earlier INSERT have settled (each member told); never rejects.
   */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const parts = [...this.waiting]
      .map((member) => ({ member, rows: member.takePending() }))
      .filter((p) => p.rows.length > 0);
    this.waiting.clear();
    this.pendingRows = 0;
    if (parts.length > 0) this.last = this.last.then(() => this.write(parts));
    return this.last;
  }

  private async write(
    parts: Array<{
      member: LedgerWriteMember<unknown>;
      rows: Array<{ ref: unknown; row: LedgerRow }>;
    }>,
  ): Promise<void> {
    let result: SharedWriteResult;
    try {
      await this.ledger.recordAllStarted(parts.flatMap((p) => p.rows.map((r) => r.row)));
      result = { written: true };
    } catch (error) {
      result = { written: false, error };
    }
    for (const p of parts) p.member.settle(p.rows, result);
  }
}
