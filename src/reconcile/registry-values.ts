import type { IHeaders } from 'kafkajs';
import type { DecodedValue } from '../events/message-value';
import { SchemaRegistryError, type RegistryDecoder } from '../kafka/registry-decoder';

/** A value's decoding, or the poison reason the bridge gives it: 404 is `schema-unknown`. */
export async function decodeOrUnknown(
  registry: RegistryDecoder,
  topic: string,
  value: Buffer,
  headers?: IHeaders,
): Promise<
  | { ok: true; decoded: DecodedValue }
  | { ok: false; reason: 'unparseable' | 'schema-unsupported' | 'schema-unknown'; error: string }
> {
  try {
    const decoding = await registry.decode(topic, value, headers);
    return decoding.ok ? decoding : { ok: false, reason: decoding.reason, error: decoding.error };
  } catch (err) {
    if (err instanceof SchemaRegistryError && err.status === 404)
      return { ok: false, reason: 'schema-unknown', error: err.message };
    throw err;
  }
}
