// One partition's read-ahead: the records fetched and not yet committed, which of them may
// start now (only a key's head), and the offset that may be committed (the handled prefix).
// Pure: no Kafka, no clock; the bridge's scheduler (start-scheduler.ts) drives it, and a
// property test drives it against a model.

/**
 * Which class a start is in: `live` events start before `background` ones (DLQ replays and
 * backfills), whatever their tenant, as Temporal's priority keys order them on the task queues.
 */
export type StartClass = 'live' | 'background';

/** A record as it enters the window. */
export interface WindowRecord<T> {
  offset: bigint;
  /** Key, value and header bytes: what the window's byte bound counts while it waits. */
  bytes: number;
  /** Records of one group start one at a time, in offset order (an aggregate, a key). */
  group: string;
  /** '' for events without a tenant (one share between them). */
  tenant: string;
  cls: StartClass;
  item: T;
}

export type EntryState = 'waiting' | 'ready' | 'in-flight' | 'handled';

/** A record in the window, with its place in the bridge-wide line (`seq`: arrival order). */
export interface WindowEntry<T> extends Omit<WindowRecord<T>, 'item'> {
  readonly window: ReadAheadWindow<T>;
  readonly seq: number;
  state: EntryState;
  /** The record's payload; dropped once handled (only its offset stays until committed). */
  item: T | undefined;
}

/** How full a window may get: above the high mark its partition is paused, below half resumed. */
export interface WindowLimits {
  records: number;
  bytes: number;
}

/** Where a window stands against its limits. */
export type WindowPressure = 'full' | 'drained' | 'between';

/** Gives each record its place in the bridge-wide line (one counter for every window). */
export type SeqSource = () => number;

export class ReadAheadWindow<T> {
  /** Records in offset order from the first unhandled one (the deque's live part). */
  private readonly entries: Array<WindowEntry<T> | undefined> = [];
  private head = 0;
  /** Each group's unhandled entries in offset order; its first is ready or in flight. */
  private readonly groups = new Map<string, Array<WindowEntry<T>>>();
  /** Next offset after everything appended (past trailing markers a fetch skipped). */
  private fetchedTo: bigint | undefined;
  private unhandledBytes = 0;
  private handledAhead = 0;
  private closed = false;

  constructor(
    /** `topic\u0000partition`: names the window's partition to the scheduler. */
    readonly partitionKey: string,
    private readonly nextSeq: SeqSource,
  ) {}

  /** Records between the committable offset and the fetch position (handled ones included). */
  get records(): number {
    return this.entries.length - this.head;
  }

  /** Bytes of the records not handled yet. */
  get bytes(): number {
    return this.unhandledBytes;
  }

  /** True once the window was discarded (its partition lost, the bridge stopped). */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Appends a fetch: its records in offset order and the offset after it (`fetchedTo`, past
   * any transaction markers or aborted records it skipped). Records at or below what the
   * window already holds are left out (a fetch that overlaps an earlier one); those `skip`
   * names come in handled (an earlier reader handled them: commit-metadata.ts). Returns the
   * entries appended; those whose state is `ready` are the first unhandled of their group.
   */
  append(
    records: ReadonlyArray<WindowRecord<T>>,
    fetchedTo: bigint,
    skip?: ReadonlySet<bigint>,
  ): Array<WindowEntry<T>> {
    if (this.closed) return [];
    const appended: Array<WindowEntry<T>> = [];
    for (const r of records) {
      if (this.fetchedTo !== undefined && r.offset < this.fetchedTo) continue;
      const entry: WindowEntry<T> = { ...r, window: this, seq: this.nextSeq(), state: 'waiting' };
      this.entries.push(entry);
      appended.push(entry);
      this.fetchedTo = r.offset + 1n;
      if (skip?.has(r.offset)) {
        entry.state = 'handled';
        entry.item = undefined;
        this.handledAhead++;
        continue;
      }
      this.unhandledBytes += r.bytes;
      const group = this.groups.get(r.group);
      if (group) group.push(entry);
      else {
        this.groups.set(r.group, [entry]);
        entry.state = 'ready';
      }
    }
    if (this.fetchedTo === undefined || fetchedTo > this.fetchedTo) this.fetchedTo = fetchedTo;
    this.dropHandledPrefix();
    return appended;
  }

  /** The scheduler took `entry` to start it. */
  take(entry: WindowEntry<T>): void {
    if (entry.window !== this || entry.state !== 'ready')
      throw new Error(`entry at offset ${entry.offset} is ${entry.state}, not ready`);
    entry.state = 'in-flight';
  }

  /**
   * `entry` is handled (started, deduplicated or dead-lettered, its ledger row written).
   * Returns the next entry of its group, now ready, if any.
   */
  complete(entry: WindowEntry<T>): WindowEntry<T> | undefined {
    if (this.closed || entry.window !== this) return undefined;
    if (entry.state !== 'in-flight')
      throw new Error(`entry at offset ${entry.offset} is ${entry.state}, not in flight`);
    entry.state = 'handled';
    entry.item = undefined;
    this.unhandledBytes -= entry.bytes;
    this.handledAhead++;
    this.dropHandledPrefix();
    const group = this.groups.get(entry.group)!;
    group.shift();
    const next = group[0];
    if (!next) {
      this.groups.delete(entry.group);
      return undefined;
    }
    next.state = 'ready';
    return next;
  }

  /** The handled prefix leaves the window: its offsets are committable. */
  private dropHandledPrefix(): void {
    while (this.head < this.entries.length && this.entries[this.head]!.state === 'handled') {
      this.entries[this.head++] = undefined;
      this.handledAhead--;
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
  }

  /**
   * The offset to commit: the first record not handled, or the fetch position when every
   * record is handled; undefined before anything was fetched. Never past an unhandled record.
   */
  commitOffset(): bigint | undefined {
    const first = this.entries[this.head];
    return first ? first.offset : this.fetchedTo;
  }

  /** Offsets handled beyond the committable one, oldest first (the commit's metadata). */
  handledBeyond(): bigint[] {
    if (this.handledAhead === 0) return [];
    const out: bigint[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.state === 'handled') out.push(e.offset);
    }
    return out;
  }

  /** Where the window stands against `limits`: full (pause), drained (resume) or between. */
  pressure(limits: WindowLimits): WindowPressure {
    if (this.records >= limits.records || this.unhandledBytes >= limits.bytes) return 'full';
    if (this.records * 2 < limits.records && this.unhandledBytes * 2 < limits.bytes)
      return 'drained';
    return 'between';
  }

  /** True when a later record of `entry`'s group waits behind it. */
  hasSuccessor(entry: WindowEntry<T>): boolean {
    return (this.groups.get(entry.group)?.length ?? 0) > 1;
  }

  /** The entries not handled yet, in offset order. */
  *unhandled(): IterableIterator<WindowEntry<T>> {
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.state !== 'handled') yield e;
    }
  }

  /** Discards the window: nothing it holds is handled or committed through it any more. */
  close(): void {
    this.closed = true;
  }
}
