/**
 * The verdicts of the translation layer, apart from the envelope parsing itself, so every
 * module (and the consumer loop) shares one list of DLQ reasons.
 */

/**
 * Why a message is poison: the value of the `dlq-reason` header (docs/architecture.md, "Bridge
 * behaviour"). `identity-conflict` and `stale-version` are decided by the consumer loop
 * against the ledger; the others by the pure translation in this folder.
 *
 * - `unparseable`: the value is not a UTF-8 JSON object, or nests arrays/objects deeper than
 *   MAX_JSON_DEPTH (64; checked on the text before parsing, so no recursive validator can
 *   overflow its stack).
 * - `schema-unsupported`: the value names its Schema Registry schema in a way the bridge
 *   cannot look up (Apicurio's global ID), or its schema uses what the bridge's decoder does
 *   not read (a Protobuf import no reference or well-known type provides, a construct the
 *   parser refuses, data-contract rules): the bridge's limit, not the bytes' fault, so it is
 *   never `unparseable`; replayable once the bridge or the producer's serde is changed.
 * - `validation-failed`: an envelope field or `data` breaks the contract (including IDs with
 *   lone surrogates).
 * - `oversized`: the value is larger than BRIDGE_MAX_MESSAGE_BYTES, or the headers break
 *   their bounds (MAX_HEADER_COUNT = 100 values, MAX_HEADER_BYTES = 64 KiB; headers.ts). The
 *   DLQ copy then carries only the headers within the bounds, the rest named in
 *   `dlq-dropped-headers`.
 * - `header-body-mismatch`: two sources of one envelope field disagree (a header and a body
 *   field, or a header repeated with different values).
 * - `key-mismatch`: the message key is set and is not the aggregate ID (the contract says the
 *   key is the aggregate ID; a different key breaks per-aggregate ordering).
 * - `start-rejected`: Temporal refused the start for a reason that retrying cannot fix (an
 *   invalid argument); decided by the consumer loop.
 * - `schema-unknown`: the value is in the Schema Registry wire format and its schema ID stayed
 *   unknown to a registry that answers for other schemas for BRIDGE_SCHEMA_UNKNOWN_AFTER
 *   (raw Avro whose first byte is 0, a producer of another registry, random bytes); the DLQ
 *   record carries `dlq-schema-id`, and `dlq replay` retries it once the schema is
 *   registered. Decided by the consumer loop.
 * - `processing-failed`: a non-transient or unknown error on this message's path (its
 *   translation threw, a ledger statement refused its data, the DLQ refused its record...)
 *   after a small bounded number of tries; decided by the consumer loop.
 */
export const POISON_REASONS = [
  'unparseable',
  'schema-unsupported',
  'missing-identity',
  'validation-failed',
  'unknown-event-type',
  'oversized',
  'identity-conflict',
  'stale-version',
  'header-body-mismatch',
  'key-mismatch',
  // Temporal refused this start as invalid (INVALID_ARGUMENT); decided by the consumer loop.
  'start-rejected',
  // The registry, which answers for other schemas, did not know the value's schema ID for
  // BRIDGE_SCHEMA_UNKNOWN_AFTER; decided by the consumer loop.
  'schema-unknown',
  // Handling this message failed with an error that is not a dependency outage (classified in
  // classify-error.ts: the message's fault, a bug, or unknown), a few times in a row; the
  // dlq-error header carries the real cause. Decided by the consumer loop.
  'processing-failed',
] as const;

export type PoisonReason = (typeof POISON_REASONS)[number];

/** The result of rejecting a message: its DLQ reason and a human-readable explanation. */
export interface Poison {
  ok: false;
  reason: PoisonReason;
  error: string;
}

/**
 * Thrown inside the parsers to stop at the first defect; parseEnvelope turns it into a Poison
 * result, so it never escapes the translation layer.
 */
export class PoisonError extends Error {
  override readonly name = 'PoisonError';
  constructor(
    readonly reason: PoisonReason,
    message: string,
  ) {
    super(message);
  }
}

/** A poison result for a reason and explanation. */
export function poison(reason: PoisonReason, error: string): Poison {
  return { ok: false, reason, error };
}
