import { createRequire } from 'node:module';

/**
 * Lets the fuzzer's KafkaJS producer send null header values, which Kafka and the Java client
 * allow and KafkaJS 2.2.4 cannot write: its record encoder (recordBatch/record/v0/index.js)
 * measures `Buffer.byteLength(header.value)` before it checks for null. Hostile producers do
 * send them, so the fuzzer must too. This replaces that module, for this process only, with
 * the same encoder measuring null as the -1 length it is written as. Fuzzer-only: the bridge
 * never writes null headers (its DLQ copy drops them).
 */
const requireHere = createRequire(__filename);
const RECORD_ENCODER = requireHere.resolve('kafkajs/src/protocol/recordBatch/record/v0');
const PRODUCE_V3 = requireHere.resolve('kafkajs/src/protocol/requests/produce/v3/request');

interface Encoder {
  writeVarInt(v: number): Encoder;
  writeInt8(v: number): Encoder;
  writeVarLong(v: unknown): Encoder;
  writeVarIntBytes(v: unknown): Encoder;
  writeVarIntArray(v: Encoder[]): Encoder;
}
interface EncoderClass {
  new (): Encoder;
  sizeOfVarInt(v: number): number;
  sizeOfVarLong(v: unknown): number;
  sizeOfVarIntBytes(v: unknown): number;
}

type HeaderValue = Buffer | string | null;
interface RecordInput {
  offsetDelta?: number;
  timestampDelta?: unknown;
  key: unknown;
  value: unknown;
  headers?: Record<string, HeaderValue | HeaderValue[]>;
}

let installed = false;

/** Installs the null-tolerant record encoder; must run before this process's first produce. */
export function allowNullHeaderValues(): void {
  if (installed) return;
  if (requireHere.cache[PRODUCE_V3]) {
    throw new Error('allowNullHeaderValues must run before the first produce request');
  }
  const Encoder = requireHere('kafkajs/src/protocol/encoder') as EncoderClass;
  const Header = requireHere('kafkajs/src/protocol/recordBatch/header/v0') as (h: {
    key: string;
    value: HeaderValue;
  }) => Encoder;
  const sizeOfValue = (v: HeaderValue) => {
    if (v === null) return Encoder.sizeOfVarInt(-1);
    const n = Buffer.byteLength(v);
    return Encoder.sizeOfVarInt(n) + n;
  };
  const encodeRecord = ({
    offsetDelta = 0,
    timestampDelta = 0,
    key,
    value,
    headers = {},
  }: RecordInput) => {
    const list = Object.keys(headers).flatMap((name) => {
      const v = headers[name]!;
      return (Array.isArray(v) ? v : [v]).map((one) => ({ key: name, value: one }));
    });
    let headersSize = Encoder.sizeOfVarInt(list.length);
    for (const h of list) {
      const keySize = Buffer.byteLength(h.key);
      headersSize += Encoder.sizeOfVarInt(keySize) + keySize + sizeOfValue(h.value);
    }
    const sizeOfBody =
      1 +
      Encoder.sizeOfVarLong(timestampDelta) +
      Encoder.sizeOfVarInt(offsetDelta) +
      Encoder.sizeOfVarIntBytes(key) +
      Encoder.sizeOfVarIntBytes(value) +
      headersSize;
    return new Encoder()
      .writeVarInt(sizeOfBody)
      .writeInt8(0)
      .writeVarLong(timestampDelta)
      .writeVarInt(offsetDelta)
      .writeVarIntBytes(key)
      .writeVarIntBytes(value)
      .writeVarIntArray(list.map(Header));
  };
  requireHere(RECORD_ENCODER);
  requireHere.cache[RECORD_ENCODER]!.exports = encodeRecord;
  installed = true;
}
