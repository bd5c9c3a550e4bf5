import type { LedgerRow } from '../db/ledger-store';
import { RetriesExhaustedError, RetryAbortedError, retryClassified } from './backoff';
import { describeError } from './classify-error';
import { deadLetter } from './dead-letter';
import { callDependency, DependencyCallError, retryOptions } from './dependency-call';
import type { LedgerWriteMember, LedgerWriteQueue, SharedWriteResult } from './ledger-write-queue';
import type { BatchItem, StepContext } from './step-context';

export type { LedgerWritesOptions } from './ledger-write-queue';

interface PendingRow {
  ref: BatchItem;
  row: LedgerRow;
}

/**
 * The ledger rows of one partition's batch: a started message's row is added here and its
 * start slot is free for the next message at once, instead of waiting for an INSERT of its
 * own. The rows go out through the bridge's LedgerWriteQueue (ledger-write-queue.ts), in
 * INSERTs shared with the other partitions, and whenever the batch asks (before a later
 * message of the same aggregate, before the commit).
 *
 * A message counts as handled (`onHandled`: its offset may be committed) only once its row is
 * durable, so no offset passes a start whose row is not written. Rows whose shared INSERT
 * failed are written again by this batch alone, the failed INSERT counting as the first try:
 * a transient failure is retried with backoff while the partition is ours; any other is
 * retried a bounded number of times and then the rows are written one by one, so one row the
 * database refuses does not hold the others: that row's message is dead-lettered
 * `processing-failed` with the cause, as when each message wrote its own row. Rows given up
 * (shutdown, lost partition) leave their messages unhandled: they are redelivered, Temporal
 * reports their starts as already started, and the row is written then. Once the batch is
 * closed nothing is handled for it any more.
 */
export class LedgerWrites implements LedgerWriteMember<BatchItem> {
  private pending: PendingRow[] = [];
  /** This batch's own writes of rows whose shared INSERT failed, in order. */
  private own: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly ctx: StepContext,
    private readonly onHandled: (item: BatchItem) => void,
    private readonly queue: LedgerWriteQueue,
  ) {}

  /** Rows added and not yet handed to an INSERT. */
  get pendingRows(): number {
    return this.pending.length;
  }

  /** Queues the row of a started message; the message is handled once it is written. */
  add(item: BatchItem, row: LedgerRow): void {
    this.pending.push({ ref: item, row });
    this.queue.notePending(this);
  }

  takePending(): PendingRow[] {
    const rows = this.pending;
    this.pending = [];
    return rows;
  }

  settle(rows: PendingRow[], result: SharedWriteResult): void {
    if (this.closed) return;
    if (result.written) {
      for (const r of rows) this.onHandled(r.ref);
      return;
    }
    this.own = this.own.then(() => this.writeAgain(rows, result.error));
  }

  /**
   * Writes every row added so far. Resolves once they are settled (written, dead-lettered, or
   * given up); never rejects. The consumer keeps heartbeating meanwhile, and a partition lost
   * while the INSERT hangs is given up after a short grace (dependency-call.ts).
   */
  async flush(): Promise<void> {
    try {
      await callDependency('postgres', () => this.queue.flush(), this.ctx.controls);
    } catch {
      // Only RetryAbortedError (the partition is no longer ours): its rows stay unhandled.
    }
    await this.own;
  }

  /** The batch is over (committed or given up): later outcomes of its rows change nothing. */
  close(): void {
    this.closed = true;
  }

  /** Rows of a failed shared INSERT, written by this batch alone; `firstError` was try one. */
  private async writeAgain(rows: PendingRow[], firstError: unknown): Promise<void> {
    const { ctx } = this;
    let tries = 0;
    try {
      await retryClassified(
        async () => {
          if (tries++ === 0) throw new DependencyCallError('postgres', firstError);
          return callDependency(
            'postgres',
            () => ctx.deps.ledger.recordAllStarted(rows.map((r) => r.row)),
            ctx.controls,
          );
        },
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
    if (!this.closed) for (const r of rows) this.onHandled(r.ref);
  }

  /** One row alone, after its batch failed: written, else its message dead-lettered. */
  private async writeOne({ ref: item, row }: PendingRow): Promise<void> {
    const { ctx } = this;
    let error: string;
    try {
      await retryClassified(
        () => callDependency('postgres', () => ctx.deps.ledger.recordStarted(row), ctx.controls),
        retryOptions(ctx, 'ledger write'),
      );
      if (!this.closed) this.onHandled(item);
      return;
    } catch (err) {
      if (err instanceof RetryAbortedError) return;
      error =
        err instanceof RetriesExhaustedError ? err.message : `unexpected: ${describeError(err)}`;
    }
    try {
      const outcome = await deadLetter(item, 'processing-failed', error, ctx);
      if (outcome.kind !== 'retry' && !this.closed) this.onHandled(item);
    } catch (err) {
      // Not expected (deadLetter retries until written or stopped); the message stays
      // unhandled, so it is redelivered rather than lost.
      ctx.log.error({ offset: item.message.offset, err: describeError(err) }, 'dead letter failed');
    }
  }
}
