// The Schema Registry side of the bridge: values that name a registry schema (the Confluent
// wire format, or Apicurio's ID headers; src/events/registry-framing.ts) decoded into the JSON
// a route validates. Schemas are fetched and compiled once per ID (registry-schemas.ts) and
// kept in a bounded cache; the client library is loaded on the first value to decode.
import type { IHeaders } from 'kafkajs';
import type { Client } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import type { SchemaRegistryConfig } from '../config/schema-registry';
import type { DecodedValue, SchemaFormat } from '../events/message-value';
import type { PoisonReason } from '../events/poison';
import { registryFramingOf } from '../events/registry-framing';
import { LruCache } from '../util/lru-cache';
import { createRegistryClient, isRequestFailure, loadRegistryLibrary } from './registry-client';
import { createSchemaCompiler, formatOf, type CompiledSchema } from './registry-schemas';

/** Why a value that names a registry schema is poison. */
export type RegistryPoisonReason = Extract<PoisonReason, 'unparseable' | 'schema-unsupported'>;

/**
 * What decoding one value gave: the decoded value, or why it is poison. `unparseable`: its
 * bytes do not decode with the schema its ID names (or its ID header is malformed): the
 * message's fault. `schema-unsupported`: the value names its schema in a way the bridge
 * cannot look up, or the schema needs what this decoder cannot do: the bridge's limit.
 */
export type RegistryDecoding =
  | { ok: true; decoded: DecodedValue }
  | { ok: false; schemaId?: number; reason: RegistryPoisonReason; error: string };

/** Decodes values that name a registry schema; schemas are cached by ID. */
export interface RegistryDecoder {
  /** The registry's base URL (no credentials: the config refuses them), for logs and fixes. */
  readonly url: string;
  /**
   * Decodes one value of `topic` that names a registry schema (registryFramingOf is defined
   * for it and `headers`, the message's). `part` `key` decodes a record key instead (the wire
   * format only; subject `<topic>-key`, as Kafka Connect's registry key converters write it).
   * Throws SchemaRegistryError when the registry cannot be asked or will not answer: the
   * environment's fault, never the message's.
   */
  decode(
    topic: string,
    value: Buffer,
    headers?: IHeaders,
    part?: 'key' | 'value',
  ): Promise<RegistryDecoding>;
}

/**
 * The registry refused or failed a request: the environment's fault, never the message's
 * (src/kafka-bridge/classify-error.ts reads `status`: 404 is a schema ID the registry does not
 * know, 401/403 credentials or permission, 5xx unavailable; none: unreachable, see `cause`).
 */
export class SchemaRegistryError extends Error {
  override readonly name = 'SchemaRegistryError';
  constructor(
    readonly url: string,
    readonly schemaId: number,
    readonly status: number | undefined,
    cause: unknown,
  ) {
    super(
      `schema registry ${url}${status !== undefined ? ` answered ${status}` : ' failed'} for schema ID ${schemaId}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * Schemas kept compiled, per kind of cache (compiled schemas by ID here; the client's answers
 * and the Avro and JSON Schema compilers' types, each an LRU of its own). A bridge reads the
 * schemas of its own topics, tens in practice; a thousand covers every version a long-lived
 * topic accumulates, while any producer naming every ID of a shared organisational registry
 * costs at most a thousand parsed schemas (a few MB), not the whole registry.
 */
export const SCHEMA_CACHE_SIZE = 1000;

/**
 * How long a schema that does not compile stays known as failed: each value of it is
 * dead-lettered without fetching and parsing it (and its references) again, and after this the
 * next value tries once more (a registry that served a broken reference may have been fixed).
 */
export const FAILED_SCHEMA_RETRY_MS = 5 * 60_000;

/** Test seams of createRegistryDecoder. */
export interface RegistryDecoderOptions {
  /** The registry client. Default: one for the config's registry. */
  client?: Client;
  /** The clock the failure cache reads. Default: Date.now. */
  now?: () => number;
  /** Compiled schemas kept. Default: SCHEMA_CACHE_SIZE. */
  cacheSize?: number;
}

type CacheEntry = { schema: CompiledSchema } | { failure: string; until: number };

/**
 * A decoder for the registry `config` names. The client library is loaded on the first value
 * to decode, so a bridge configured with a registry but fed JSON carries none of it.
 */
export function createRegistryDecoder(
  config: SchemaRegistryConfig,
  options: RegistryDecoderOptions = {},
): RegistryDecoder {
  let loaded: RegistryDecoder | undefined;
  return {
    url: config.url,
    decode: (topic, value, headers, part) =>
      (loaded ??= loadDecoder(config, options)).decode(topic, value, headers, part),
  };
}

function loadDecoder(
  config: SchemaRegistryConfig,
  options: RegistryDecoderOptions,
): RegistryDecoder {
  const lib = loadRegistryLibrary();
  const now = options.now ?? Date.now;
  const client = options.client ?? createRegistryClient(lib, config, SCHEMA_CACHE_SIZE);
  const compile = createSchemaCompiler(lib, client, { cacheCapacity: SCHEMA_CACHE_SIZE });
  const schemas = new LruCache<number, CacheEntry>(options.cacheSize ?? SCHEMA_CACHE_SIZE);
  const registryError = (schemaId: number, err: unknown) =>
    new SchemaRegistryError(config.url, schemaId, (err as { status?: number })?.status, err);

  /** The compiled schema of `schemaId`, or why it does not compile (cached for a while). */
  const schemaOf = async (
    topic: string,
    schemaId: number,
    part: 'key' | 'value',
  ): Promise<CacheEntry> => {
    const cached = schemas.get(schemaId);
    if (cached && ('schema' in cached || cached.until > now())) return cached;
    let format: SchemaFormat = 'AVRO';
    try {
      const info = await client.getBySubjectAndId(`${topic}-${part}`, schemaId);
      format = formatOf(info);
      const entry = { schema: await compile(info) };
      schemas.set(schemaId, entry);
      return entry;
    } catch (err) {
      // The schema itself, or the references a schema names, could not be fetched.
      if (isRequestFailure(lib, err)) throw registryError(schemaId, err);
      const why = err instanceof Error ? err.message : String(err);
      const entry = {
        failure: `schema ${schemaId} (${format}) cannot be read by the bridge's decoder: ${why}`,
        until: now() + FAILED_SCHEMA_RETRY_MS,
      };
      schemas.set(schemaId, entry);
      return entry;
    }
  };

  return {
    url: config.url,
    async decode(topic, value, headers, part = 'value') {
      // A key names its schema in the wire format only (Apicurio's headers are the value's).
      const framing = registryFramingOf(value, part === 'value' ? headers : undefined);
      if (framing === undefined) throw new RangeError('the value names no registry schema');
      if ('unreadable' in framing) return { ok: false, ...framing.unreadable };
      const { schemaId } = framing;
      const entry = await schemaOf(topic, schemaId, part);
      if ('failure' in entry)
        return { ok: false, schemaId, reason: 'schema-unsupported', error: entry.failure };
      const { format } = entry.schema;
      if (format === 'AVRO' && framing.encoding !== undefined && framing.encoding !== 'BINARY')
        return {
          ok: false,
          schemaId,
          reason: 'schema-unsupported',
          error: `the value is Avro in the ${framing.encoding} encoding (Apicurio's apicurio.value.encoding header); the bridge reads the binary encoding, the serde's default`,
        };
      try {
        const decoded = entry.schema.decode(value.subarray(framing.payloadOffset), framing.kind);
        return { ok: true, decoded: { value: decoded, schemaId, format } };
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        return {
          ok: false,
          schemaId,
          reason: 'unparseable',
          error: `value does not decode with schema ${schemaId} (${format}): ${why}`,
        };
      }
    },
  };
}
