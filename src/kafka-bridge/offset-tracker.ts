/**
 * The offsets of one partition's batch and which of them are handled. Only the contiguous
 * prefix of handled messages is resolved and committed: a message handled out of order (its
 * key group ran ahead) waits until every message before it is handled, so a crash never
 * commits past an unhandled message.
 */
export class OffsetTracker {
  private readonly done: boolean[];
  private prefix = 0;
  private lastResolved: string | undefined;

  /**
   * @param offsets the batch's offsets in order (int64 strings, as kafkajs gives them)
   * @param resolve called once per offset as the handled prefix grows past it
   */
  constructor(
    private readonly offsets: readonly string[],
    private readonly resolve: (offset: string) => void = () => undefined,
  ) {
    this.done = offsets.map(() => false);
  }

  /** Marks the message at `index` (its position in the batch) handled. */
  markHandled(index: number): void {
    if (index < 0 || index >= this.offsets.length) throw new RangeError(`no message ${index}`);
    this.done[index] = true;
    while (this.prefix < this.offsets.length && this.done[this.prefix]) {
      this.lastResolved = this.offsets[this.prefix]!;
      this.resolve(this.lastResolved);
      this.prefix++;
    }
  }

  /** Messages handled in the contiguous prefix. */
  get handledPrefix(): number {
    return this.prefix;
  }

  /** The last offset of the handled prefix, undefined when none is handled. */
  get lastHandled(): string | undefined {
    return this.lastResolved;
  }

  /** The offset to commit (last handled + 1), undefined when nothing is handled. */
  nextOffset(): string | undefined {
    return this.lastResolved === undefined
      ? undefined
      : (BigInt(this.lastResolved) + 1n).toString();
  }
}
