/**
 * Offset commits of the bridge, one partition at a time: a batch's commit (inside eachBatch)
 * and a commit past trailing transaction markers (outside it, after a fetch KafkaJS did not
 * hand to eachBatch) may overlap, and Kafka keeps whichever commit arrives last. Each
 * partition's commits run in order, and an offset at or below one already committed in this
 * generation is not sent, so the committed offset never moves backwards.
 */
export class PartitionCommits {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly highest = new Map<string, bigint>();

  private keyOf(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  /** A new group generation: offsets may have been committed by other members meanwhile. */
  reset(): void {
    this.highest.clear();
  }

  /**
   * Runs `send` (which commits `offset` for the partition) after the partition's earlier
   * commits; resolves true when it was sent, false when an equal or higher offset already was.
   */
  commit(
    topic: string,
    partition: number,
    offset: string,
    send: () => Promise<void>,
  ): Promise<boolean> {
    const key = this.keyOf(topic, partition);
    const next = BigInt(offset);
    const run = async (): Promise<boolean> => {
      const done = this.highest.get(key);
      if (done !== undefined && next <= done) return false;
      await send();
      const now = this.highest.get(key);
      if (now === undefined || next > now) this.highest.set(key, next);
      return true;
    };
    const previous = this.chains.get(key) ?? Promise.resolve();
    const result = previous.then(run, run);
    const tail = result.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return result;
  }
}
