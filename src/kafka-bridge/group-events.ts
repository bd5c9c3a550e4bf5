import type { Consumer } from 'kafkajs';
import type { Logger } from '../logger';
import type { HandledBeyond } from './handled-beyond';
import type { PartitionCommits } from './partition-commits';
import type { PartitionLease, PartitionOwnership } from './partition-ownership';
import type { PartitionProgress } from './partition-progress';
import type { PartitionRun } from './partition-run';
import type { StartScheduler } from './start-scheduler';

/** What the bridge's reaction to its consumer group's events touches. */
export interface GroupEventsOptions {
  consumer: Consumer;
  ownership: PartitionOwnership;
  commits: PartitionCommits;
  scheduler: StartScheduler;
  handledBeyond: HandledBeyond;
  progress: PartitionProgress;
  log: Logger;
  /** The partition's run of the lease's generation (created on first use). */
  runOf: (topic: string, partition: number, lease: PartitionLease) => Promise<PartitionRun>;
  stopping: () => boolean;
}

/**
 * Follows the consumer group: a new assignment starts a new generation (every window is
 * discarded, each partition is read again from its committed offset, skipping what the
 * commit's metadata says its last reader handled); a rebalance commits what is handled and
 * gives the partitions up; a fetch of transaction markers alone moves its window's fetch
 * position.
 */
export function followGroup(options: GroupEventsOptions): void {
  const { consumer, ownership, scheduler, log } = options;
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    options.commits.reset();
    ownership.assign(payload.memberAssignment);
    scheduler.discardAll();
    options.handledBeyond.refresh();
    options.progress.retainOnly((topic, partition) => ownership.owns(topic, partition));
    log.info({ assignment: payload.memberAssignment }, 'partitions assigned');
  });
  consumer.on(consumer.events.REBALANCING, () => {
    // What is handled is committed before the partitions go (Kafka takes a commit of the
    // ending generation until the new one forms), so their next reader reads less again.
    for (const run of scheduler.allRuns()) void scheduler.commitNow(run);
    ownership.revokeAll();
  });
  consumer.on(consumer.events.CRASH, () => ownership.revokeAll());

  // A fetch of nothing but transaction markers and aborted records never reaches eachBatch:
  // KafkaJS passes over it in memory (and, with autoCommit off, commits nothing). It moves
  // the partition's fetch position, so the window's committable offset passes it once every
  // record before it is handled; else an idle partition ending with a marker would stay one
  // short of its end for good.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    const { topic, partition, batchSize, firstOffset, lastOffset } = payload;
    if (batchSize !== 0 || firstOffset === null || options.stopping()) return;
    const lease = ownership.lease(topic, partition);
    if (!lease.valid()) return;
    void options
      .runOf(topic, partition, lease)
      .then((run) =>
        scheduler.admit(run, [], BigInt(lastOffset) + 1n, undefined, BigInt(firstOffset)),
      )
      .catch((err: unknown) =>
        log.warn(
          { topic, partition, err: (err as Error).message },
          'a fetch past transaction markers was not taken in; the next one is',
        ),
      );
  });
}
