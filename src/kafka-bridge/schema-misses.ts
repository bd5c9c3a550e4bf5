import { describeError } from './classify-error';

/**
 * When a schema ID the registry does not know stops being the environment's fault. A 404
 * for one ID is ambiguous: the schema may be on its way (a registry replicating, a schema being
 * restored) or never coming (raw Avro without the framing whose first byte happens to be 0,
 * a producer writing through a staging registry, random bytes). Once the registry has shown
 * that it answers (another schema decoded lately, or it lists its subjects), an ID it has not
 * known for `afterMs` is the message's fault: dead-lettered `schema-unknown` with its bytes
 * and ID, for `dlq replay` once the schema is registered. Until then the partition waits
 * (`schema-pending`). A registry that shows nothing (every ID unknown and no listing: the
 * wrong URL) keeps the partition stalled (`schema-unknown`, an operator's fix).
 */

/** Options of SchemaMisses. */
export interface SchemaMissOptions {
  /**
   * How long an ID may stay unknown to a registry that answers before its values are
   * dead-lettered. BRIDGE_SCHEMA_UNKNOWN_AFTER; default there: 1 minute.
   */
  afterMs: number;
  /** Asks the registry for what only a working one answers (its subjects); throws otherwise. */
  probe: () => Promise<void>;
  /** Default: Date.now. */
  now?: () => number;
}

/** What to do with a value whose schema ID the registry answered 404 for. */
export type MissVerdict =
  /** The registry answers; the ID may still come: retry (`schema-pending`). */
  | { kind: 'wait'; unknownForMs: number }
  /** Unknown for `afterMs` to a registry that answers: the message's fault. */
  | { kind: 'dead-letter'; error: string }
  /** The registry has not shown it answers at all: stays the environment's (`schema-unknown`). */
  | { kind: 'unproven'; probeError: unknown };

/** A decode that succeeded this recently shows the registry answers for IDs. */
export const ANSWERED_WITHIN_MS = 10 * 60_000;
/** A probe's answer is reused this long, so a burst of misses asks once. */
export const PROBE_REUSE_MS = 10_000;
/** Schema IDs whose first miss is remembered, at most (the oldest are forgotten first). */
export const MAX_REMEMBERED_MISSES = 10_000;

/**
 * The registry answered 404 for a value's schema ID while it answers for others: retried as
 * `schema-pending` (classify-error.ts) until the ID has been unknown for `afterMs`.
 */
export class SchemaPendingError extends Error {
  override readonly name = 'SchemaPendingError';
  constructor(
    readonly schemaId: number,
    readonly unknownForMs: number,
    cause: unknown,
  ) {
    super(
      `schema ID ${schemaId} unknown to the registry for ${Math.round(unknownForMs / 1000)} s (it answers for other schemas): ${describeError(cause)}`,
      { cause },
    );
  }
}

/**
 * The registry answered 404 for a value's schema ID and has not shown it answers at all: no
 * other schema decoded lately and its subjects listing failed too. Classified by its cause
 * (the 404: `schema-unknown`), so the stall stays and pages.
 */
export class RegistryUnprovenError extends Error {
  override readonly name = 'RegistryUnprovenError';
  constructor(
    readonly schemaId: number,
    cause: unknown,
    readonly probeError: unknown,
  ) {
    super(
      `schema ID ${schemaId} unknown to the registry, which lists no subjects either (${describeError(probeError)}): ${describeError(cause)}`,
      { cause },
    );
  }
}

export class SchemaMisses {
  /** Schema ID → when the registry first answered 404 for it (insertion order: oldest first). */
  private readonly firstMiss = new Map<number, number>();
  private lastAnswered = Number.NEGATIVE_INFINITY;
  private probed: { at: number; error?: unknown } | undefined;
  private probing: Promise<{ at: number; error?: unknown }> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: SchemaMissOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The registry resolved `schemaId` (its value decoded, or was shown not to fit it). */
  noteAnswered(schemaId: number): void {
    this.lastAnswered = this.now();
    this.firstMiss.delete(schemaId);
  }

  /** The registry answered 404 for `schemaId`: what to do with the value. */
  async judge(schemaId: number): Promise<MissVerdict> {
    const now = this.now();
    let first = this.firstMiss.get(schemaId);
    if (first === undefined) {
      first = now;
      this.firstMiss.set(schemaId, now);
      if (this.firstMiss.size > MAX_REMEMBERED_MISSES)
        this.firstMiss.delete(this.firstMiss.keys().next().value!);
    }
    const probeError = await this.unhealthy(now);
    if (probeError !== undefined) return { kind: 'unproven', probeError: probeError.error };
    const unknownForMs = now - first;
    if (unknownForMs < this.options.afterMs) return { kind: 'wait', unknownForMs };
    return {
      kind: 'dead-letter',
      error: `schema ID ${schemaId} is unknown to the registry (404 for ${Math.round(unknownForMs / 1000)} s while it answered for other schemas); replay it once the schema is registered under this ID`,
    };
  }

  /** Undefined when the registry has shown it answers; else why not (the probe's failure). */
  private async unhealthy(now: number): Promise<{ error: unknown } | undefined> {
    if (now - this.lastAnswered <= ANSWERED_WITHIN_MS) return undefined;
    let probed = this.probed;
    if (probed === undefined || now - probed.at > PROBE_REUSE_MS) {
      this.probing ??= this.options.probe().then(
        () => ({ at: this.now() }),
        (error: unknown) => ({ at: this.now(), error: error ?? new Error('probe failed') }),
      );
      try {
        probed = this.probed = await this.probing;
      } finally {
        this.probing = undefined;
      }
    }
    return 'error' in probed ? { error: probed.error } : undefined;
  }
}
