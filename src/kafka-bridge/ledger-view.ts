import type { KnownEvent, LedgerStore } from '../db/ledger-store';
import type { StartCommand } from '../events/translate';

/** The ledger calls the consumer loop makes (a fake in unit tests). */
export type BatchLedger = Pick<
  LedgerStore,
  'findKnown' | 'highestVersions' | 'recordStarted' | 'recordAllStarted'
>;

/** The ledger keys a start command is looked up by: its identity, and its former one. */
function identitiesOf(cmd: StartCommand): string[] {
  return cmd.formerIdentity === undefined ? [cmd.identity] : [cmd.identity, cmd.formerIdentity];
}

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
      this.ledger.findKnown([...new Set(starts.flatMap(identitiesOf))]),
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
        this.ledger.findKnown(identitiesOf(cmd)),
        cmd.aggregateVersion !== undefined
          ? this.ledger.highestVersions([cmd.aggregateId])
          : new Map<string, number>(),
      ]);
      for (const identity of identitiesOf(cmd)) {
        const row = known.get(identity);
        if (row && !this.known.has(identity)) this.known.set(identity, row);
      }
      const h = highest.get(cmd.aggregateId);
      if (h !== undefined) this.raise(cmd.aggregateId, h);
    }
    return this.factsOf(cmd);
  }

  private factsOf(cmd: StartCommand): LedgerFacts {
    return {
      known: this.known.get(cmd.identity) ?? this.knownAsBefore(cmd),
      highest: cmd.aggregateVersion !== undefined ? this.highest.get(cmd.aggregateId) : undefined,
    };
  }

  /**
   * The row of the event under its former identity (identity.ts, formerIdentityOf), when it
   * is this very event: the same type and data, first seen by a bridge that keyed it without
   * its source. A row of another type or other data is not taken for it: under the former key
   * it may be another source's event, which is a new event now (its run's claim still guards
   * the entity: docs/bridge.md, "CloudEvents identity").
   */
  private knownAsBefore(cmd: StartCommand): KnownEvent | undefined {
    if (cmd.formerIdentity === undefined) return undefined;
    const row = this.known.get(cmd.formerIdentity);
    return row && row.eventType === cmd.eventType && row.fingerprint === cmd.fingerprint
      ? row
      : undefined;
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
