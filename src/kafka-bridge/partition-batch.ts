import type { Batch } from 'kafkajs';
import { LedgerWriteQueue, type LedgerWritesOptions } from './ledger-write-queue';
import type { StepControls, StepDeps } from './message-step';
import { readableEndOf } from '../kafka/kafka-fetch-patch';
import { translateBatch, windowRecordOf, type IntakeDeps } from './batch-intake';
import { StartScheduler } from './start-scheduler';

export { groupKeyOf } from './batch-intake';

/** Everything the batch handler talks to; injected by the bridge (and by tests). */
export interface BatchDeps extends StepDeps, IntakeDeps {
  /** Starts in flight at once, at most (BRIDGE_START_CONCURRENCY). */
  concurrency: number;
  /**
   * The bridge's queue of ledger rows, shared by every partition so their rows share
   * INSERTs. Default: a queue of this batch's own, with `ledgerWrites`.
   */
  ledgerQueue?: LedgerWriteQueue;
  /** How a batch's own queue groups rows into INSERTs (no `ledgerQueue`). Default: its defaults. */
  ledgerWrites?: LedgerWritesOptions;
}

/** The consumer's controls for one partition's batch (kafkajs eachBatch payload). */
export interface BatchControls extends StepControls {
  resolveOffset: (offset: string) => void;
  /** Commits `nextOffset` (last handled offset + 1) for this partition. */
  commit: (nextOffset: string) => Promise<void>;
}

/**
 * Handles one fetched batch to its end, through the bridge's own parts: taken in (decoded,
 * translated, looked up in the ledger) into a read-ahead window of its own, started by a
 * scheduler of its own (a key's records in order, different keys concurrently up to
 * `concurrency`), each start's ledger row written before it counts as handled; then the
 * handled prefix is resolved and committed (past trailing transaction markers once all is
 * handled), only while the partition is still ours. The bridge itself keeps one window per
 * partition across batches (bridge.ts); this is its single-batch form, for tools and tests.
 */
export async function handleBatch(
  batch: Batch,
  deps: BatchDeps,
  controls: BatchControls,
): Promise<void> {
  const { topic, partition } = batch;
  // A batch fetched for a partition a rebalance already took away (or while stopping) is
  // left for its owner: kafkajs fetches again until its next heartbeat learns of the rebalance.
  if (!controls.shouldContinue() || batch.messages.length === 0) return;
  const log = deps.log.child({ topic, partition });
  deps.metrics.consumed.inc({ topic }, batch.messages.length);
  const first = batch.messages[0]!.offset;
  deps.metrics.progress.noteBatch(topic, partition, first, readableEndOf(batch));
  const scheduler = new StartScheduler({
    concurrency: deps.concurrency,
    limits: { records: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY },
    weightOf: () => 1,
    pauses: deps.metrics.pauses,
    commit: async () => undefined, // once, at the end
    log,
  });
  const run = scheduler.runFor({
    topic,
    partition,
    lease: { generation: 0, valid: controls.ownsPartition },
    deps,
    controls,
    ledgerQueue: deps.ledgerQueue ?? new LedgerWriteQueue(deps.ledger, deps.ledgerWrites),
    log,
  });
  try {
    const items = await translateBatch(batch, deps, run.intakeContext(controls.onWait));
    if (items === undefined) return; // stopped while the registry was failing: nothing handled
    const records = items.map((item) => windowRecordOf(item, deps.backfill ?? false));
    const fetchedTo = BigInt(batch.lastOffset()) + 1n;
    if (!(await scheduler.admit(run, records, fetchedTo, controls.onWait))) return;
    // Until nothing is left to start: a key's next record is ready once the row before it is
    // written, so the rows in the queue are written whenever the starts run dry.
    do {
      await scheduler.whenIdle();
      await run.writes.flush();
    } while (scheduler.busy);
  } finally {
    // Whatever ended the batch, the rows of its starts are written (or given up) before the
    // commit, and nothing is written for it afterwards.
    await run.writes.flush();
    const next = run.window.commitOffset();
    run.close();
    if (next !== undefined && next > BigInt(first) && controls.ownsPartition()) {
      controls.resolveOffset((next - 1n).toString());
      await controls.commit(next.toString());
      deps.metrics.progress.noteCommitted(topic, partition, next.toString());
    }
  }
}
