import { DLQ_HEADER } from '../../src/events/dlq-message';
import { waitFor } from '../../src/util/wait';
import type { BridgeHarness } from './bridge-harness';

/**
 * Watches one partition's committed offset while a test runs; each time it moves, reads the
 * DLQ (after seeing the commit, so every dead letter written before that commit is there)
 * and notes each poison offset below the commit that has no DLQ record: an offset committed
 * past a poison message before its dead letter was durable.
 */
export class CommitWatcher {
  /** What went wrong, one line each; empty when every commit came after its dead letters. */
  readonly violations: string[] = [];
  /** The committed offsets seen, in order. */
  readonly seen: number[] = [];
  private stopped = false;
  private readonly done: Promise<unknown>;

  constructor(
    private readonly h: BridgeHarness,
    private readonly poisonOffsets: readonly number[],
    private readonly partition = 0,
  ) {
    this.done = waitFor(() => this.check(), {
      timeoutMs: 600_000,
      intervalMs: 100,
      what: 'the end of the commit watch',
    });
  }

  /** One look; true once stop() was called before it began (that look is the last). */
  private async check(): Promise<boolean> {
    const last = this.stopped;
    try {
      await this.look();
    } catch (err) {
      // waitFor takes a throw for "not yet": fine while watching, but after stop() the
      // watch must end, and the failed look is reported instead.
      if (!last) throw err;
      this.violations.push(`the last look failed: ${(err as Error).message}`);
    }
    return last;
  }

  private async look(): Promise<void> {
    const committed = (await this.h.committedOffsets()).get(this.partition) ?? -1;
    if (committed > (this.seen.at(-1) ?? -1)) {
      const dlq = await this.h.readDlq();
      const inDlq = new Set(
        dlq
          .filter((r) => r.headers[DLQ_HEADER.sourcePartition] === String(this.partition))
          .map((r) => Number(r.headers[DLQ_HEADER.sourceOffset])),
      );
      for (const o of this.poisonOffsets)
        if (o < committed && !inDlq.has(o))
          this.violations.push(`committed ${committed} with poison offset ${o} not in the DLQ`);
      this.seen.push(committed);
    }
  }

  /** Stops watching after one last look. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}
