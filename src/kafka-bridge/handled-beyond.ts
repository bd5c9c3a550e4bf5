import type { Admin } from 'kafkajs';
import type { Logger } from '../logger';
import { describeError } from './classify-error';
import { decodeCommitMetadata } from './commit-metadata';

/** How long a new window waits for the group's committed metadata before it reads without. */
export const METADATA_WAIT_MS = 5_000;

type Skips = Map<string, Set<bigint>>;

/**
 * The records each partition's last reader handled beyond its committed offset, read once
 * per generation of the consumer group from the committed offsets' metadata
 * (commit-metadata.ts), so a partition read again after a rebalance or a restart skips them.
 * A failed read skips nothing: those records are handled again, and deduplicated.
 */
export class HandledBeyond {
  private pending: Promise<Skips> = Promise.resolve(new Map());

  constructor(
    private readonly admin: Admin,
    private readonly groupId: string,
    private readonly topics: readonly string[],
    private readonly log: Logger,
  ) {}

  /** A new generation began: read the group's committed offsets and their metadata. */
  refresh(): void {
    this.pending = this.admin
      .fetchOffsets({ groupId: this.groupId, topics: [...this.topics] })
      .then((topics) => {
        const out: Skips = new Map();
        for (const { topic, partitions } of topics)
          for (const p of partitions) {
            if (BigInt(p.offset) < 0n) continue;
            const skip = decodeCommitMetadata(BigInt(p.offset), p.metadata);
            if (skip.size > 0) out.set(`${topic}\u0000${p.partition}`, skip);
          }
        return out;
      })
      .catch((err: unknown) => {
        this.log.warn(
          { err: describeError(err) },
          "could not read the committed offsets' metadata; records handled beyond them are read again",
        );
        return new Map();
      });
  }

  /** The offsets of `topic`/`partition` handled beyond its committed one (none after a wait). */
  async skipFor(topic: string, partition: number): Promise<Set<bigint>> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Skips>((resolve) => {
      timer = setTimeout(() => resolve(new Map()), METADATA_WAIT_MS);
    });
    try {
      const skips = await Promise.race([this.pending, timeout]);
      return skips.get(`${topic}\u0000${partition}`) ?? new Set();
    } finally {
      clearTimeout(timer);
    }
  }
}
