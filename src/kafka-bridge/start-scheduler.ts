// The bridge's scheduler: fetching is decoupled from starting. Each partition's fetched
// records wait in its read-ahead window (partition-run.ts); the scheduler starts them, at
// most `concurrency` at once over every partition, in the order the start queue says (live
// first, tenants in weighted turns, a key's head only), within the open-run caps; commits
// each partition's handled prefix; and pauses a partition whose window is full.
import { describeError } from './classify-error';
import { handleMessage } from './message-step';
import type { OpenRuns } from './open-runs';
import { PartitionRun, type Entry, type PartitionRunOptions } from './partition-run';
import type { PartitionFlow } from './partition-flow';
import type { PartitionPauses, PartitionWait } from './partition-pauses';
import type { WindowLimits, WindowRecord } from './read-ahead-window';
import type { BatchItem } from './step-context';
import { StartQueue } from './start-queue';
import { withRecordSpan } from '../tracing/kafka-record';
import type { Logger } from '../logger';

/** How long a partition's handled prefix waits for more before it is committed. */
export const COMMIT_DELAY_MS = 200;

/** What the scheduler is given. */
export interface SchedulerOptions {
  /** Starts in flight at once over every partition (BRIDGE_START_CONCURRENCY). */
  concurrency: number;
  /** The read-ahead per partition (BRIDGE_WINDOW_RECORDS, _BYTES). */
  limits: WindowLimits;
  /** A tenant's weight (TENANT_WEIGHTS, 1 for the others). */
  weightOf: (tenant: string) => number;
  /** Open runs against their caps. Default: none (every start admitted). */
  openRuns?: OpenRuns;
  /** Pauses partitions whose window is full. Default: none (a single batch, handleBatch). */
  flow?: PartitionFlow;
  /** The gauge of partitions waiting on their environment, and their pauses. */
  pauses: PartitionPauses;
  /** Commits `offset` (and `metadata`) for a run's partition while it is ours. */
  commit: (run: PartitionRun, offset: bigint, metadata: string | null) => Promise<void>;
  /** The metadata a commit carries: the handled offsets beyond it (commit-metadata.ts). */
  metadataOf?: (offset: bigint, beyond: readonly bigint[]) => string | null;
  log: Logger;
}

export class StartScheduler {
  private readonly queue: StartQueue<Entry>;
  private readonly runs = new Map<string, PartitionRun>();
  private readonly running = new Set<Promise<void>>();
  private inFlight = 0;
  private seq = 0;
  private stopping = false;
  private idle: Array<() => void> = [];

  constructor(private readonly options: SchedulerOptions) {
    this.queue = new StartQueue<Entry>(options.weightOf);
  }

  /** True while a start runs or a record is ready to start. */
  get busy(): boolean {
    return this.running.size > 0 || this.queue.size > 0;
  }

  /** Starts in flight now (not counting those waiting on their environment). */
  get active(): number {
    return this.inFlight;
  }

  /** The current run of `topic`/`partition`, if any. */
  runOf(topic: string, partition: number): PartitionRun | undefined {
    return this.runs.get(`${topic}\u0000${partition}`);
  }

  /** Every current run. */
  allRuns(): PartitionRun[] {
    return [...this.runs.values()];
  }

  /**
   * The run of `topic`/`partition` for the lease's generation: the current one, or a new one
   * (an older generation's is discarded first: the consumer re-reads from the committed
   * offset in every generation).
   */
  runFor(options: Omit<PartitionRunOptions, 'seq' | 'onHandled'>): PartitionRun {
    const key = `${options.topic}\u0000${options.partition}`;
    const current = this.runs.get(key);
    if (current && current.lease.generation === options.lease.generation) return current;
    if (current) this.discard(current);
    const run = new PartitionRun({
      ...options,
      seq: () => this.seq++,
      onHandled: (r, e) => this.complete(r, e),
    });
    this.runs.set(key, run);
    // KafkaJS keeps a pause across a rebalance: a new window starts unpaused.
    this.options.flow?.resume('window', options.topic, options.partition);
    return run;
  }

  /**
   * Takes in a fetch that began at `from` (its first record's offset by default); returns
   * false when the run no longer takes any (its partition lost, the bridge stopped).
   */
  async admit(
    run: PartitionRun,
    records: ReadonlyArray<WindowRecord<BatchItem>>,
    fetchedTo: bigint,
    onWait?: (wait: PartitionWait) => void,
    from: bigint | undefined = records[0]?.offset,
  ): Promise<boolean> {
    const ready = await run.admit(records, fetchedTo, run.intakeContext(onWait));
    if (!ready || this.runs.get(run.window.partitionKey) !== run) return false;
    // A generation's first fetch begins at the committed offset: nothing to commit up to it.
    run.committed ??= from;
    for (const e of ready) this.queue.add(e);
    if (this.options.flow && run.window.pressure(this.options.limits) === 'full')
      this.options.flow.pause('window', run.topic, run.partition);
    this.scheduleCommit(run);
    this.pump();
    return true;
  }

  /** Discards every run `keep` does not name (a rebalance); all of them without `keep`. */
  discardAll(keep: (run: PartitionRun) => boolean = () => false): void {
    for (const run of [...this.runs.values()]) if (!keep(run)) this.discard(run);
  }

  private discard(run: PartitionRun): void {
    run.close();
    this.runs.delete(run.window.partitionKey);
    this.queue.removeWhere((e) => e.window === run.window);
    this.options.flow?.resume('window', run.topic, run.partition);
  }

  /** Starts what the queue allows, up to the concurrency. */
  private pump(): void {
    const { openRuns } = this.options;
    const admits = openRuns ? (t: string, c: Entry['cls']) => openRuns.admits(t, c) : undefined;
    while (!this.stopping && this.inFlight < this.options.concurrency) {
      const entry = this.queue.pick(admits);
      if (!entry) break;
      const run = this.runs.get(entry.window.partitionKey);
      if (!run || run.window !== entry.window) continue;
      if (run.blocked(this.options.concurrency)) {
        run.parked.push(entry);
        continue;
      }
      run.window.take(entry);
      openRuns?.reserve(entry.tenant, entry.cls);
      this.inFlight++;
      run.active++;
      const work = this.execute(run, entry);
      this.running.add(work);
      void work.finally(() => {
        this.running.delete(work);
        this.notifyIdle();
      });
    }
    this.notifyIdle();
  }

  /** Admission changed (runs closed): starts may begin. */
  wake(): void {
    this.pump();
  }

  private async execute(run: PartitionRun, entry: Entry): Promise<void> {
    const item = entry.item!;
    let slot = true;
    let waiting = false;
    let faulted = false;
    let startedAs: string | undefined;
    const onWait = (wait: PartitionWait) => {
      // A start waiting on its environment gives up its slot (the others' starts go on); one
      // waiting on a fault stops its partition picking more until it no longer waits.
      if (slot) {
        slot = false;
        this.inFlight--;
      }
      if (wait.fault !== 'slow' && !faulted) {
        faulted = true;
        run.startFault();
      }
      if (waiting) run.updateWait(wait);
      else {
        waiting = true;
        run.startWaiting(wait, (w) =>
          this.options.pauses.hold(this.pauseControl(), run.topic, run.partition, w),
        );
      }
      this.pump();
    };
    try {
      const outcome = await withRecordSpan(
        item.message,
        { topic: run.topic, partition: run.partition },
        () => handleMessage(item, run.stepContext(onWait)),
        (o) => o.kind,
      );
      if (outcome.kind === 'retry') return; // stopped, or the partition is no longer ours
      if (outcome.kind === 'started') startedAs = outcome.row.workflowId;
      if (!('row' in outcome)) return this.complete(run, entry);
      run.writes.add(item, outcome.row);
      // A later event of the aggregate may look for this one's row (a cancellation finds its
      // order's owner there): written now rather than after the queue's delay.
      if (run.window.hasSuccessor(entry)) void run.writes.flush();
    } catch (err) {
      // Not expected (the step turns every failure into an outcome): the record stays
      // unhandled, so its partition's commit stops before it and a restart reads it again.
      run.log.error(
        { offset: item.message.offset, err: describeError(err) },
        'start failed unexpectedly',
      );
    } finally {
      this.options.openRuns?.settle(entry.tenant, entry.cls, startedAs);
      if (slot) this.inFlight--;
      run.active--;
      if (faulted) run.endFault();
      if (waiting) run.stopWaiting();
      // What its partition could not start meanwhile goes back in line.
      if (!run.blocked(this.options.concurrency))
        for (const e of run.parked.splice(0)) if (e.state === 'ready') this.queue.add(e);
      this.pump();
    }
  }

  /** The pause control environment holds take (the flow's, else none). */
  private pauseControl() {
    return this.options.flow?.control('environment') ?? { pause: () => {}, resume: () => {} };
  }

  private complete(run: PartitionRun, entry: Entry): void {
    if (this.runs.get(run.window.partitionKey) !== run) return;
    const next = run.complete(entry);
    if (next) this.queue.add(next);
    const { flow, limits } = this.options;
    if (flow?.isPaused('window', run.topic, run.partition))
      if (run.window.pressure(limits) === 'drained')
        flow.resume('window', run.topic, run.partition);
    this.scheduleCommit(run);
    this.pump();
  }

  /** Commits the run's handled prefix soon (coalescing the records handled meanwhile). */
  private scheduleCommit(run: PartitionRun): void {
    if (run.commitTimer || this.stopping) return;
    run.commitTimer = setTimeout(() => {
      run.commitTimer = undefined;
      void this.commitNow(run);
    }, COMMIT_DELAY_MS);
  }

  /** Commits the run's handled prefix now, if it moved and the partition is still ours. */
  async commitNow(run: PartitionRun): Promise<void> {
    const offset = run.window.commitOffset();
    if (offset === undefined || (run.committed !== undefined && offset <= run.committed)) return;
    if (!run.lease.valid()) return;
    const metadata = this.options.metadataOf?.(offset, run.window.handledBeyond()) ?? null;
    try {
      await this.options.commit(run, offset, metadata);
      if (run.committed === undefined || offset > run.committed) run.committed = offset;
    } catch (err) {
      run.log.warn(
        { offset: String(offset), err: describeError(err) },
        'commit failed; the next one, or a restart, commits past these records',
      );
    }
  }

  /**
   * Stops starting: lets the starts in flight finish, writes their ledger rows, and commits
   * every partition's handled prefix. Resolves once all that is done.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    for (const run of this.runs.values()) {
      clearTimeout(run.commitTimer);
      run.commitTimer = undefined;
      await run.writes.flush();
      await this.commitNow(run);
    }
  }

  /** Resolves once nothing is in flight or ready to start (a single batch's end). */
  whenIdle(): Promise<void> {
    if (this.running.size === 0 && this.queue.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private notifyIdle(): void {
    if (this.running.size > 0 || (this.queue.size > 0 && !this.stopping)) return;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}
