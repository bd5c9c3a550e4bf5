import type { Logger } from '../logger';
import { describeError } from './classify-error';
import type { PartitionPauses, PartitionWait, PauseControl, PauseHold } from './partition-pauses';

/**
 * Keeps a stall on its partition. KafkaJS fetches again from a broker only once every batch
 * of its last fetch has returned from `eachBatch`, so one batch retrying an outage would hold
 * every other partition (and topic) that broker leads. A batch runs inside `eachBatch` until
 * it first waits on its environment (StepControls.onWait: a dependency fault retried, or a call
 * in flight too long); then its partition is paused, `eachBatch` returns, and the batch goes on
 * here in the background, exactly as before (same retries, heartbeats, ownership checks and
 * commit of its handled prefix). When it ends, whatever ended it, the partition is resumed and
 * KafkaJS fetches it again from the handled prefix the batch resolved.
 */
export class DetachedBatches {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly consumer: PauseControl,
    private readonly pauses: PartitionPauses,
    private readonly log: Logger,
  ) {}

  /** Batches running in the background now. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Runs one batch of `topic`/`partition`; `handle` is the batch handler, given the `onWait`
   * its controls report waits to. Resolves when the batch is handled, or as soon as it waits
   * on its environment (then it is detached); rejects when the batch fails before that.
   */
  async run(
    topic: string,
    partition: number,
    handle: (onWait: (wait: PartitionWait) => void) => Promise<void>,
  ): Promise<void> {
    if (this.pauses.isHeld(topic, partition)) {
      // An earlier batch of this partition still runs detached (a consumer restarted after a
      // crash forgot its pause): pause it again; that batch resumes it when it ends.
      this.consumer.pause([{ topic, partitions: [partition] }]);
      return;
    }
    let waited: (wait: PartitionWait) => void = () => undefined;
    const firstWait = new Promise<PartitionWait>((resolve) => (waited = resolve));
    // The latest wait is the pause's reason (`slow`, then classified), before and after.
    const detachedAs: { hold?: PauseHold; latest?: PartitionWait } = {};
    const onWait = (wait: PartitionWait) => {
      detachedAs.latest = wait;
      if (detachedAs.hold) detachedAs.hold.update(wait);
      else waited(wait);
    };
    const work = handle(onWait);
    const wait = await Promise.race([work.then(() => undefined), firstWait]);
    if (wait === undefined) return;

    const taken = this.pauses.hold(this.consumer, topic, partition, detachedAs.latest ?? wait);
    detachedAs.hold = taken;
    const log = this.log.child({ topic, partition });
    const reason = detachedAs.latest ?? wait;
    log.warn(
      { dependency: reason.dependency, fault: reason.fault },
      'partition waits on its environment: paused, the other partitions go on',
    );
    const detached = work
      .catch((err: unknown) =>
        // What KafkaJS would have seen from eachBatch (a commit refused after a rebalance):
        // the partition is fetched again from its handled prefix, by us or its new owner.
        log.warn({ err: describeError(err) }, 'detached batch ended with an error'),
      )
      .finally(() => {
        taken.release();
        this.running.delete(detached);
        log.info('partition resumed');
      });
    this.running.add(detached);
  }

  /** Resolves once every batch running in the background has ended. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
