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

/** The keys a record holds the view's facts by: `i:` an identity, `a:` an aggregate. */
function holdKeysOf(cmd: StartCommand): string[] {
  return [...identitiesOf(cmd).map((i) => `i:${i}`), `a:${cmd.aggregateId}`];
}

/** What the ledger says about one start command. */
export interface LedgerFacts {
  known: KnownEvent | undefined;
  /** Highest applied version of the aggregate; undefined for unversioned events. */
  highest: number | undefined;
}

/**
 * A partition's view of the ledger for the records in its read-ahead window: each fetched
 * batch prefetched with one query each for identities and versions (the fast path), or, when
 * that lookup failed for a reason that is not an outage (one message's identity the database
 * refuses), looked up per message inside that message's own guard. Starts made through the
 * view are remembered, so a later message of the same aggregate sees them without a query,
 * in this batch or a later one. What it knows is kept while a record in the window needs it
 * (retain at intake, before the prefetch is asked; release once handled), so it stays as
 * small as the window, and a start it forgets has its ledger row written already.
 */
export class LedgerView {
  private readonly known = new Map<string, KnownEvent>();
  private readonly highest = new Map<string, number>();
  /** Identities a batch lookup answered for (its absence from `known` is an answer too). */
  private readonly prefetched = new Set<string>();
  /** Records in the window per identity and per aggregate (retain/release). */
  private readonly holds = new Map<string, number>();

  constructor(private readonly ledger: BatchLedger) {}

  /** Records that will be looked up: their facts are kept until each is released. */
  retain(starts: readonly StartCommand[]): void {
    for (const s of starts) for (const key of holdKeysOf(s)) this.hold(key, 1);
  }

  /** A retained record is handled: what only it needed is forgotten. */
  release(cmd: StartCommand): void {
    for (const key of holdKeysOf(cmd)) {
      if (this.hold(key, -1) > 0) continue;
      const [kind, id] = [key[0], key.slice(2)];
      if (kind === 'i') {
        this.known.delete(id);
        this.prefetched.delete(id);
      } else this.highest.delete(id);
    }
  }

  private hold(key: string, by: number): number {
    const n = (this.holds.get(key) ?? 0) + by;
    if (n > 0) this.holds.set(key, n);
    else this.holds.delete(key);
    return n;
  }

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
    // What this view remembered meanwhile is as new as the answer, or newer.
    for (const [k, v] of known) if (!this.known.has(k)) this.known.set(k, v);
    for (const [k, v] of highest) this.raise(k, v);
    for (const s of starts) this.prefetched.add(s.identity);
  }

  /**
   * The facts for one command when the batch was prefetched (no query: the common case, so
   * the caller need not wrap it as a dependency call), else undefined.
   */
  prefetchedFacts(cmd: StartCommand): LedgerFacts | undefined {
    return this.prefetched.has(cmd.identity) ? this.factsOf(cmd) : undefined;
  }

  /** The facts for one command: from the prefetch, or queried for this command alone. */
  async lookup(cmd: StartCommand): Promise<LedgerFacts> {
    if (!this.prefetched.has(cmd.identity)) {
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
