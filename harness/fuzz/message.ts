/** The fuzzer's message model, shared by the generator, the producer and the judge. */

/** What the bridge should do with a message: start it, find it a duplicate, dead-letter it. */
export type Expect = 'start' | 'duplicate' | 'dlq' | 'any';
export type HeaderValue = Buffer | string | null;
/** Prototype-less, so `__proto__` and `constructor` are plain names; repeats as arrays. */
export type FuzzHeaders = Record<string, HeaderValue | HeaderValue[]>;

export interface FuzzMessage {
  seq: number;
  kind: string;
  key: Buffer | string | null;
  value: Buffer | string | null;
  headers: FuzzHeaders;
  expect: Expect;
  partition: number;
}

/** Codecs, as KafkaJS numbers them (CompressionTypes): none, gzip, snappy, lz4, zstd. */
export const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

/** The event type of the extra route the fuzz bridge gets (any JSON object as data). */
export const FUZZ_EVENT_TYPE = 'FuzzNote';

/** Header entries in wire order into a FuzzHeaders object (a repeated name becomes an array). */
export function headersOf(entries: Array<[string, HeaderValue]>): FuzzHeaders {
  const out = Object.create(null) as FuzzHeaders;
  for (const [name, value] of entries) {
    if (!Object.hasOwn(out, name)) out[name] = value;
    else {
      const seen = out[name]!;
      out[name] = Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
  }
  return out;
}
