import type { LedgerRow } from '../db/ledger-store';
import { RetriesExhaustedError, RetryAbortedError, retryClassified } from './backoff';
import { describeError } from './classify-error';
import { deadLetter } from './dead-letter';
import { callDependency, retryOptions } from './dependency-call';
import type { BatchItem, StepContext } from './step-context';

/** How the rows of one partition's batch are grouped into INSERTs. */
export interface LedgerWritesOptions {
  /**
   * How long the first pending row waits for others to share its INSERT. Short against a
   * start's own latency (tens of ms on a busy server), so a row is visible to other readers
   * (a cancellation's owner lookup in another partition, reconcile) almost as soon as it was
   * when each message wrote its own. Default: 20 ms.
   */
  maxDelayMs?: number;
  /** Rows per INSERT at most; more pending rows are written at once. Default: 500. */
  maxRows?: number;
}

interface PendingRow {
  item: BatchItem;
  row: LedgerRow;
}

/**
 * The ledger rows of one partition's batch, written together: a started message's row is
 * added here and its start slot is free for the next message at once, instead of waiting for
 * an INSERT of its own (the bridge's time per message was the start, then the INSERT, in
 * series). The rows go out in one multi-row INSERT per flush, at most one flush in flight,
 * flushed `maxDelayMs` after the first pending row, at `maxRows`, and whenever the batch
 * asks (before a later message of the same aggregate, before the commit).
 *
 * A message counts as handled (`onHandled`: its offset may be committed) only once its row is
 * durable, so no offset passes a start whose row is not written. A flush that fails for a
 * transient reason is retried with backoff while the partition is ours; one that fails
 * otherwise is retried a bounded number of times and then written row by row, so one row the
 * database refuses does not hold the others: that row's message is dead-lettered
 * `processing-failed` with the cause, as when each message wrote its own row. A flush given
 * up (shutdown, lost partition) leaves its messages unhandled: they are redelivered, Temporal
 * reports their starts as already started, and the row is written then.
 */
export class LedgerWrites {
  private pending: PendingRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private last: Promise<void> = Promise.resolve();
  private readonly maxDelayMs: number;
  private readonly maxRows: number;

  constructor(
    private readonly ctx: StepContext,
    private readonly onHandled: (item: BatchItem) => void,
    options: LedgerWritesOptions = {},
  ) {
    this.maxDelayMs = options.maxDelayMs ?? 20;
    this.maxRows = Math.max(1, options.maxRows ?? 500);
  }

  /** Rows added and not yet handed to a flush. */
  get pendingRows(): number {
    return this.pending.length;
  }

  /** Queues the row of a started message; the message is handled once it is written. */
  add(item: BatchItem, row: LedgerRow): void {
    this.pending.push({ item, row });
    if (this.pending.length >= this.maxRows) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.maxDelayMs);
  }

  /**
   * Writes every row added so far. Resolves once they and every earlier flush are settled
   * (written, dead-lettered, or given up); never rejects.
   */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending;
    this.pending = [];
    this.last = this.last.then(() => this.write(rows));
    return this.last;
  }

  private async write(rows: PendingRow[]): Promise<void> {
    if (rows.length === 0) return;
    const { ctx } = this;
    try {
      await retryClassified(
        () =>
          callDependency(
            'postgres',
            () => ctx.deps.ledger.recordAllStarted(rows.map((r) => r.row)),
            ctx.controls,
          ),
        retryOptions(ctx, 'ledger write'),
      );
    } catch (err) {
      if (err instanceof RetryAbortedError) return;
      ctx.log.warn(
        { rows: rows.length, err: describeError(err) },
        'ledger batch write failed; writing its rows one by one',
      );
      for (const r of rows) await this.writeOne(r);
      return;
    }
    for (const r of rows) this.onHandled(r.item);
  }

  /** One row alone, after its batch failed: written, else its message dead-lettered. */
  private async writeOne({ item, row }: PendingRow): Promise<void> {
    const { ctx } = this;
    let error: string;
    try {
      await retryClassified(
        () => callDependency('postgres', () => ctx.deps.ledger.recordStarted(row), ctx.controls),
        retryOptions(ctx, 'ledger write'),
      );
      this.onHandled(item);
      return;
    } catch (err) {
      if (err instanceof RetryAbortedError) return;
      error =
        err instanceof RetriesExhaustedError ? err.message : `unexpected: ${describeError(err)}`;
    }
    try {
      const outcome = await deadLetter(item, 'processing-failed', error, ctx);
      if (outcome.kind !== 'retry') this.onHandled(item);
    } catch (err) {
      // Not expected (deadLetter retries until written or stopped); the message stays
      // unhandled, so it is redelivered rather than lost.
      ctx.log.error({ offset: item.message.offset, err: describeError(err) }, 'dead letter failed');
    }
  }
}
