// One partition's part of the scheduler, for one generation of the consumer group: its
// read-ahead window, its view of the ledger, its ledger rows, and the controls its steps run
// with. A rebalance ends it (every generation starts a new one from the committed offset).
import { RetriesExhaustedError, RetryAbortedError, retryClassified } from './backoff';
import { callDependency, retryOptions } from './dependency-call';
import { LedgerView } from './ledger-view';
import { LedgerWrites } from './ledger-writes';
import { LedgerWriteQueue } from './ledger-write-queue';
import type { BatchItem, StepContext, StepControls, StepDeps } from './step-context';
import type { PartitionLease } from './partition-ownership';
import type { PartitionWait, PauseHold } from './partition-pauses';
import {
  ReadAheadWindow,
  type SeqSource,
  type WindowEntry,
  type WindowRecord,
} from './read-ahead-window';
import type { StartCommand } from '../events/translate';
import type { Logger } from '../logger';

export type Entry = WindowEntry<BatchItem>;

/** What a partition run is made of. */
export interface PartitionRunOptions {
  topic: string;
  partition: number;
  lease: PartitionLease;
  deps: StepDeps;
  /** The partition's controls; each start gets them with its own `onWait`. */
  controls: Omit<StepControls, 'onWait'>;
  ledgerQueue: LedgerWriteQueue;
  seq: SeqSource;
  log: Logger;
  /** Offsets handled beyond the committed one by an earlier reader (commit-metadata.ts). */
  skip?: ReadonlySet<bigint>;
  /** A record's ledger row is written: it is handled. */
  onHandled: (run: PartitionRun, entry: Entry) => void;
}

const commandOf = (entry: Entry): StartCommand | undefined =>
  entry.item?.translation.kind === 'start' ? entry.item.translation : undefined;

export class PartitionRun {
  readonly topic: string;
  readonly partition: number;
  readonly lease: PartitionLease;
  readonly window: ReadAheadWindow<BatchItem>;
  readonly view: LedgerView;
  readonly writes: LedgerWrites;
  readonly log: Logger;
  private readonly byItem = new Map<BatchItem, Entry>();
  private readonly ctx: StepContext;
  /** Starts of this partition waiting on their environment, and the pause they hold. */
  private waiting = 0;
  private hold: PauseHold | undefined;
  /** Ready entries picked while the partition waited: they go back once it no longer does. */
  readonly parked: Entry[] = [];
  /** The offset last committed for this run (so an unchanged prefix is not sent again). */
  committed: bigint | undefined;
  commitTimer: NodeJS.Timeout | undefined;

  constructor(readonly options: PartitionRunOptions) {
    const { topic, partition, lease, deps } = options;
    this.topic = topic;
    this.partition = partition;
    this.lease = lease;
    this.log = options.log;
    this.window = new ReadAheadWindow<BatchItem>(`${topic}\u0000${partition}`, options.seq);
    this.view = new LedgerView(deps.ledger);
    this.ctx = {
      topic,
      partition,
      deps,
      controls: options.controls,
      view: this.view,
      log: this.log,
    };
    this.writes = new LedgerWrites(
      this.ctx,
      (item) => {
        const entry = this.byItem.get(item);
        if (entry) options.onHandled(this, entry);
      },
      options.ledgerQueue,
    );
  }

  /** The context one start runs in: the partition's, with its own `onWait`. */
  stepContext(onWait: (wait: PartitionWait) => void): StepContext {
    return { ...this.ctx, controls: { ...this.options.controls, onWait } };
  }

  /** The intake's context (decoding, the ledger lookup), reporting waits to `onWait`. */
  intakeContext(onWait?: (wait: PartitionWait) => void): StepContext {
    return onWait ? this.stepContext(onWait) : this.ctx;
  }

  /**
   * Takes a batch's records into the window: the view holds their facts first, then the
   * batch is looked up in the ledger (one query each for identities and versions; a lookup
   * the database refuses leaves each message to look itself up). Returns the entries that
   * became ready, or undefined when the partition was lost or the bridge stopped meanwhile.
   */
  async admit(
    records: ReadonlyArray<WindowRecord<BatchItem>>,
    fetchedTo: bigint,
    ctx: StepContext = this.ctx,
  ): Promise<Entry[] | undefined> {
    const skip = this.options.skip;
    const starts = records.flatMap((r) =>
      r.item.translation.kind === 'start' && !skip?.has(r.offset) ? [r.item.translation] : [],
    );
    this.view.retain(starts);
    try {
      // A fetch past transaction markers alone has nothing to look up.
      if (starts.length > 0)
        await retryClassified(
          () => callDependency('postgres', () => this.view.prefetch(starts), ctx.controls),
          retryOptions(ctx, 'ledger batch lookup'),
        );
    } catch (err) {
      if (err instanceof RetryAbortedError) {
        for (const s of starts) this.view.release(s);
        return undefined;
      }
      if (!(err instanceof RetriesExhaustedError)) throw err;
      this.log.warn({ err: err.message }, 'batch ledger lookup failed; looking up per message');
    }
    if (!this.lease.valid() || this.window.isClosed) {
      for (const s of starts) this.view.release(s);
      return undefined;
    }
    const appended = this.window.append(records, fetchedTo, skip);
    const kept = new Set<BatchItem>();
    for (const e of appended)
      if (e.item) {
        this.byItem.set(e.item, e);
        kept.add(e.item);
      }
    // Records the window already held (an overlapping fetch) were left out: let go of them.
    for (const r of records)
      if (!kept.has(r.item) && r.item.translation.kind === 'start' && !skip?.has(r.offset))
        this.view.release(r.item.translation);
    return appended.filter((e) => e.state === 'ready');
  }

  /** `entry` is handled: the view forgets what only it needed; its successor, if ready. */
  complete(entry: Entry): Entry | undefined {
    const cmd = commandOf(entry);
    if (entry.item) this.byItem.delete(entry.item);
    const next = this.window.complete(entry);
    if (cmd) this.view.release(cmd);
    return next;
  }

  /**
   * True while a start of this partition waits on a fault of its environment (a dependency
   * down or refusing it: retried), or while `concurrency` of its starts are in flight: no new
   * start is picked from it. A start merely slow (in flight over 1.5 s) gives up its slot but
   * does not hold the partition back: a busy Temporal is slow for every partition alike.
   */
  blocked(concurrency: number): boolean {
    return this.faults > 0 || this.active >= concurrency;
  }

  /** Starts of this partition in flight (those waiting on their environment included). */
  active = 0;
  private faults = 0;

  /**
   * A start began waiting on its environment (`slow`, or a fault); the first pauses the
   * partition (the `onceflow_bridge_partition_paused` gauge says on what).
   */
  startWaiting(wait: PartitionWait, takeHold: (wait: PartitionWait) => PauseHold): void {
    if (this.waiting++ === 0) this.hold = takeHold(wait);
    else this.hold?.update(wait);
  }

  /** The wait's reason changed (`slow`, then classified). */
  updateWait(wait: PartitionWait): void {
    this.hold?.update(wait);
  }

  /** A waiting start's wait is a fault of its environment: the partition picks no more. */
  startFault(): void {
    this.faults++;
  }

  /** A start that waited on a fault ended. */
  endFault(): void {
    this.faults--;
  }

  /** A waiting start ended; the last one resumes the partition. */
  stopWaiting(): void {
    if (--this.waiting > 0) return;
    this.hold?.release();
    this.hold = undefined;
  }

  /** The run is over (its partition lost, a new generation, the bridge stopped). */
  close(): void {
    clearTimeout(this.commitTimer);
    this.window.close();
    this.writes.close();
    this.hold?.release();
    this.hold = undefined;
  }
}
