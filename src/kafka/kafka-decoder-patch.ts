import { assertPatchedKafkaJs, requireKafkaJs } from './kafkajs-internals';

/**
 * A prototype-safe, linear-time record header decoder for KafkaJS, installed at load time.
 *
 * KafkaJS 2.2.4 (src/protocol/recordBatch/record/v0/decoder.js) folds a record's headers with
 *
 *     headers.reduce((obj, { key, value }) => ({ ...obj, [key]: obj[key] === undefined ? value
 *       : Array.isArray(obj[key]) ? obj[key].concat([value]) : [obj[key], value] }), {})
 *
 * which has two defects a producer can trigger with one message:
 * - `obj[key]` reads inherited properties: a header named `constructor` decodes to
 *   `[Function Object, <value>]`, `toString`/`valueOf`/`__proto__` likewise; downstream code
 *   (and the DLQ producer's encoder) then meets a function where a Buffer belongs;
 * - the spread copies the whole object per header and `concat` copies the array per repeat:
 *   O(n²) in the header count, so 8,000 headers block the event loop for ~11 s, past the
 *   consumer's session timeout.
 *
 * The replacement below is the same record decoder with the fold rewritten: one pass into an
 * object without a prototype (so no name is inherited and `__proto__` is an ordinary own key),
 * repeats collected in place. The result keeps KafkaJS's shape: a header seen once maps to its
 * value, a repeated one to the array of its values in order; a null value (legal in Kafka)
 * stays null.
 *
 * KafkaJS's batch decoder takes `require('../record/v0/decoder')` once, when it is first
 * loaded, which happens lazily on the first fetch. Replacing that module's exports before then
 * is enough; installHeaderDecoderPatch refuses to run later (it could not take effect).
 */

const RECORD_DECODER = requireKafkaJs.resolve('kafkajs/src/protocol/recordBatch/record/v0/decoder');
const BATCH_DECODER = requireKafkaJs.resolve('kafkajs/src/protocol/recordBatch/v0/decoder');

/** The part of KafkaJS's Decoder (src/protocol/decoder.js) the record decoder uses. */
interface KafkaDecoder {
  readInt8(): number;
  readVarInt(): number;
  readVarLong(): unknown;
  readVarIntString(): string | null;
  readVarIntBytes(): Buffer | null;
}

/** KafkaJS's BigInt-backed Long (src/utils/long.js). */
interface KafkaLong {
  add(other: unknown): KafkaLong;
  toString(): string;
}
interface LongClass {
  fromValue(value: unknown): KafkaLong;
}

export type HeaderValue = Buffer | null;
/** Decoded headers: own properties only, no prototype. */
export type DecodedHeaders = Record<string, HeaderValue | HeaderValue[]>;

/**
 * Reads a record's header array (`[varint count] ([varint-string key] [varint-bytes value])*`)
 * into a prototype-less object, in one pass.
 */
export function decodeRecordHeaders(decoder: KafkaDecoder): DecodedHeaders {
  const headers = Object.create(null) as DecodedHeaders;
  const count = decoder.readVarInt(); // -1 (null array) reads as no headers, as in KafkaJS
  for (let i = 0; i < count; i++) {
    // A null key is impossible from Java clients; KafkaJS stored it as "null", so do we.
    const key = String(decoder.readVarIntString());
    const value = decoder.readVarIntBytes();
    if (!Object.hasOwn(headers, key)) {
      headers[key] = value;
    } else {
      const seen = headers[key]!;
      if (Array.isArray(seen)) seen.push(value);
      else headers[key] = [seen, value];
    }
  }
  return headers;
}

interface BatchContext {
  firstOffset?: string;
  firstTimestamp?: string;
  magicByte?: number;
  isControlBatch?: boolean;
  timestampType?: number;
  maxTimestamp?: string;
}

/** KafkaJS 2.2.4's record v0 decoder with decodeRecordHeaders in place of the fold. */
function createRecordDecoder(Long: LongClass, logAppendTime: number) {
  return function decodeRecord(decoder: KafkaDecoder, batchContext: BatchContext = {}) {
    const { firstOffset, firstTimestamp, magicByte, timestampType, maxTimestamp } = batchContext;
    const isControlBatch = batchContext.isControlBatch ?? false;
    const attributes = decoder.readInt8();
    const timestampDelta = decoder.readVarLong();
    const timestamp =
      timestampType === logAppendTime && maxTimestamp
        ? maxTimestamp
        : Long.fromValue(firstTimestamp).add(timestampDelta).toString();
    const offsetDelta = decoder.readVarInt();
    const offset = Long.fromValue(firstOffset).add(offsetDelta).toString();
    const key = decoder.readVarIntBytes();
    const value = decoder.readVarIntBytes();
    const headers = decodeRecordHeaders(decoder);
    return {
      magicByte,
      attributes,
      timestamp,
      offset,
      key,
      value,
      headers,
      isControlRecord: isControlBatch,
      batchContext,
    };
  };
}

let installed: unknown;

/**
 * Replaces KafkaJS's record decoder with the prototype-safe, linear one. Idempotent; must run
 * before the process's first fetch (createKafka calls it). Throws when KafkaJS is a version
 * this patch was not written for, or when a fetch already captured the original decoder.
 */
export function installHeaderDecoderPatch(): void {
  const cached = requireKafkaJs.cache[RECORD_DECODER];
  if (installed !== undefined && cached?.exports === installed) return;
  assertPatchedKafkaJs(
    "kafka-decoder-patch mirrors KafkaJS 2.2's record decoder",
    'src/kafka/kafka-decoder-patch.ts against its record/v0/decoder.js',
  );
  if (requireKafkaJs.cache[BATCH_DECODER]) {
    throw new Error(
      "KafkaJS's record batch decoder was loaded before the header decoder patch; " +
        'install it before the first fetch (createKafka does)',
    );
  }
  requireKafkaJs(RECORD_DECODER); // loads the module so its cache entry exists
  const Long = requireKafkaJs('kafkajs/src/utils/long') as LongClass;
  const { LOG_APPEND_TIME } = requireKafkaJs('kafkajs/src/protocol/timestampTypes') as {
    LOG_APPEND_TIME: number;
  };
  installed = createRecordDecoder(Long, LOG_APPEND_TIME);
  requireKafkaJs.cache[RECORD_DECODER]!.exports = installed;
}
