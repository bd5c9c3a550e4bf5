import type { KnownEvent, LedgerStore } from '../db/ledger-store';
import type { StartCommand } from '../events/translate';

/** The ledger calls the consumer loop makes (a fake in unit tests). */
export type BatchLedger = Pick<
  LedgerStore,
  'findKnown' | 'highestVersions' | 'recordStarted' | 'recordAllStarted'
>;

/** What the ledger says about one start command. */
export interface LedgerFacts {
  known: KnownEvent | undefined;
  /** Highest applied version of the aggregate; undefined for unversioned events. */
  highest: number | undefined;
}

/**
 * One batch's view of the ledger: prefetched with one query each for identities and versions
 * (the fast path), or, when the batch lookup failed for a reason that is not an outage (one
 * message's identity the database refuses), looked up per message inside that message's own
 * guard. Starts made by this batch are remembered, so a later message of the same aggregate
 * sees them without a query.
 */
export class LedgerView {
  private readonly known = new Map<string, KnownEvent>();
  private readonly highest = new Map<string, number>();
  private prefetched = false;

  constructor(private readonly ledger: BatchLedger) {}

  /** The batch lookup: one query for identities, one for aggregate versions. */
  async prefetch(starts: readonly StartCommand[]): Promise<void> {
    const [known, highest] = await Promise.all([
      this.ledger.findKnown([...new Set(starts.map((s) => s.identity))]),
      this.ledger.highestVersions([
        ...new Set(
          starts.filter((s) => s.aggregateVersion !== undefined).map((s) => s.aggregateId),
        ),
      ]),
    ]);
    for (const [k, v] of known) this.known.set(k, v);
    for (const [k, v] of highest) this.raise(k, v);
    this.prefetched = true;
  }

  /**
   * The facts for one command when the batch was prefetched (no query: the common case, so
   * the caller need not wrap it as a dependency call), else undefined.
   */
  prefetchedFacts(cmd: StartCommand): LedgerFacts | undefined {
    return this.prefetched ? this.factsOf(cmd) : undefined;
  }

  /** The facts for one command: from the prefetch, or queried for this command alone. */
  async lookup(cmd: StartCommand): Promise<LedgerFacts> {
    if (!this.prefetched) {
      const [known, highest] = await Promise.all([
        this.ledger.findKnown([cmd.identity]),
        cmd.aggregateVersion !== undefined
          ? this.ledger.highestVersions([cmd.aggregateId])
          : new Map<string, number>(),
      ]);
      const row = known.get(cmd.identity);
      if (row && !this.known.has(cmd.identity)) this.known.set(cmd.identity, row);
      const h = highest.get(cmd.aggregateId);
      if (h !== undefined) this.raise(cmd.aggregateId, h);
    }
    return this.factsOf(cmd);
  }

  private factsOf(cmd: StartCommand): LedgerFacts {
    return {
      known: this.known.get(cmd.identity),
      highest: cmd.aggregateVersion !== undefined ? this.highest.get(cmd.aggregateId) : undefined,
    };
  }

  /** Records a start (or a Temporal-side duplicate) made by this batch. */
  remember(cmd: StartCommand, runId: string | null): void {
    this.known.set(cmd.identity, {
      eventType: cmd.eventType,
      fingerprint: cmd.fingerprint,
      workflowId: cmd.workflowId,
      runId,
    });
    if (cmd.aggregateVersion !== undefined) this.raise(cmd.aggregateId, cmd.aggregateVersion);
  }

  private raise(aggregateId: string, version: number): void {
    this.highest.set(aggregateId, Math.max(this.highest.get(aggregateId) ?? 0, version));
  }
}
