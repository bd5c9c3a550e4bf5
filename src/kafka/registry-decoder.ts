// The Schema Registry side of the bridge: values in the Confluent wire format (a zero byte, a
// 4-byte schema ID, the Avro, Protobuf or JSON Schema payload) decoded into the JSON a route
// validates. The client library (@confluentinc/schemaregistry: the wire format's owner's;
// Protobuf is decoded by protobufjs, registry-protobuf.ts) brings about 300 modules; it is
// loaded on the first value to decode, so a bridge that never sees one never carries it.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import type {
  SchemaRegistryClient,
  SchemaInfo,
} from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import type { Deserializer } from '@confluentinc/schemaregistry/dist/serde/serde';
import type { SchemaRegistryConfig } from '../config/schema-registry';
import { wireFormatSchemaId, type DecodedValue, type SchemaFormat } from '../events/message-value';
import { toJsonValue } from './registry-json';
import { parseProtoSchema, type ProtoSchema } from './registry-protobuf';

/** What decoding one value gave: the decoded value, or why its bytes are poison. */
export type RegistryDecoding =
  { ok: true; decoded: DecodedValue } | { ok: false; schemaId: number; error: string };

/** Decodes wire-format values through one registry; schemas are cached by ID. */
export interface RegistryDecoder {
  /** The registry's base URL (no credentials: the config refuses them), for logs and fixes. */
  readonly url: string;
  /**
   * Decodes one value of `topic` (which must be in the wire format); `part` `key` decodes a
   * record key instead (subject `<topic>-key`, as Kafka Connect's registry key converters
   * write it). Default: `value`.
   */
  decode(topic: string, value: Buffer, part?: 'key' | 'value'): Promise<RegistryDecoding>;
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

type Library = typeof import('@confluentinc/schemaregistry/dist/schemaregistry-client') &
  typeof import('@confluentinc/schemaregistry/dist/serde/avro') &
  typeof import('@confluentinc/schemaregistry/dist/serde/json') &
  typeof import('@confluentinc/schemaregistry/dist/serde/serde') &
  typeof import('@confluentinc/schemaregistry/dist/rest-error');

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use (above) */
export function loadLibrary(): Library {
  const dist = '@confluentinc/schemaregistry/dist';
  return {
    ...(require(`${dist}/schemaregistry-client`) as object),
    ...(require(`${dist}/serde/avro`) as object),
    ...(require(`${dist}/serde/json`) as object),
    ...(require(`${dist}/serde/serde`) as object),
    ...(require(`${dist}/rest-error`) as object),
  } as Library;
}
/* eslint-enable @typescript-eslint/no-require-imports */

function httpsAgentOf(config: SchemaRegistryConfig): Agent | undefined {
  const { caPath, certPath, keyPath } = config.tls;
  if (!caPath && !certPath) return undefined;
  return new Agent({
    ...(caPath ? { ca: readFileSync(caPath) } : {}),
    ...(certPath ? { cert: readFileSync(certPath), key: readFileSync(keyPath!) } : {}),
  });
}

export function createClient(lib: Library, config: SchemaRegistryConfig): SchemaRegistryClient {
  const agent = httpsAgentOf(config);
  const auth = config.auth;
  return new lib.SchemaRegistryClient({
    baseURLs: [config.url],
    createAxiosDefaults: { timeout: config.timeoutMs, ...(agent ? { httpsAgent: agent } : {}) },
    ...(auth && 'bearerToken' in auth
      ? {
          bearerAuthCredentials: {
            credentialsSource: 'STATIC_TOKEN',
            token: auth.bearerToken,
          },
        }
      : {}),
    ...(auth && 'username' in auth
      ? {
          basicAuthCredentials: {
            credentialsSource: 'USER_INFO',
            userInfo: `${auth.username}:${auth.password}`,
          },
        }
      : {}),
    // The bridge retries with its own backoff, heartbeating, for as long as it takes.
    maxRetries: 0,
    cacheCapacity: 10_000,
  } as ConstructorParameters<Library['SchemaRegistryClient']>[0]);
}

function formatOf(info: SchemaInfo): SchemaFormat {
  const type = (info.schemaType ?? 'AVRO').toUpperCase();
  return type === 'PROTOBUF' || type === 'JSON' ? type : 'AVRO';
}

/** A registry answer (RestError) or a failed request (no response): the environment's. */
function isRequestFailure(lib: Library, err: unknown): boolean {
  if (err instanceof lib.RestError) return true;
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { isAxiosError?: boolean }).isAxiosError === true
  );
}

/**
 * A decoder for the registry `config` names. The client library is loaded on the first value
 * to decode, so a bridge configured with a registry but fed JSON carries none of it. Its
 * schemas are cached by ID (the client's cache), so only a schema's first value costs a
 * request.
 */
export function createRegistryDecoder(config: SchemaRegistryConfig): RegistryDecoder {
  let loaded: RegistryDecoder | undefined;
  return {
    url: config.url,
    decode: (topic, value, part) => (loaded ??= loadDecoder(config)).decode(topic, value, part),
  };
}

function loadDecoder(config: SchemaRegistryConfig): RegistryDecoder {
  const lib = loadLibrary();
  const client = createClient(lib, config);
  const deserializers = new Map<string, Deserializer>();
  const deserializerFor = (format: 'AVRO' | 'JSON', part: 'key' | 'value'): Deserializer => {
    let d = deserializers.get(`${format}:${part}`);
    if (d) return d;
    const conf = {} as never;
    const serde = part === 'key' ? lib.SerdeType.KEY : lib.SerdeType.VALUE;
    if (format === 'JSON') d = new lib.JsonDeserializer(client, serde, { validate: true } as never);
    else d = new lib.AvroDeserializer(client, serde, conf);
    deserializers.set(`${format}:${part}`, d);
    return d;
  };
  // Parsed .proto files by schema ID (registry-protobuf.ts says why not the library's own).
  const protoSchemas = new Map<number, ProtoSchema>();
  const protoSchemaOf = async (schemaId: number, info: SchemaInfo): Promise<ProtoSchema> => {
    let schema = protoSchemas.get(schemaId);
    if (schema) return schema;
    const references: string[] = [];
    for (const ref of info.references ?? []) {
      const referenced = await client.getSchemaMetadata(ref.subject!, ref.version!);
      references.push(referenced.schema!);
    }
    schema = parseProtoSchema(info.schema, references);
    protoSchemas.set(schemaId, schema);
    return schema;
  };
  const decodeProtobuf = async (schemaId: number, info: SchemaInfo, value: Buffer) => {
    const id = new lib.SchemaId('PROTOBUF');
    const headerBytes = id.fromBytes(value);
    const schema = await protoSchemaOf(schemaId, info);
    return schema.decode(id.messageIndexes ?? [0], value.subarray(headerBytes));
  };

  return {
    url: config.url,
    async decode(topic, value, part = 'value') {
      const schemaId = wireFormatSchemaId(value);
      if (schemaId === undefined) throw new RangeError('value is not in the wire format');
      let info: SchemaInfo;
      try {
        info = await client.getBySubjectAndId(`${topic}-${part}`, schemaId);
      } catch (err) {
        throw new SchemaRegistryError(
          config.url,
          schemaId,
          (err as { status?: number })?.status,
          err,
        );
      }
      const format = formatOf(info);
      try {
        const decoded =
          format === 'PROTOBUF'
            ? await decodeProtobuf(schemaId, info, value)
            : toJsonValue(await deserializerFor(format, part).deserialize(topic, value));
        return { ok: true, decoded: { value: decoded, schemaId, format } };
      } catch (err) {
        // A schema a Protobuf schema references is fetched here too.
        if (isRequestFailure(lib, err))
          throw new SchemaRegistryError(
            config.url,
            schemaId,
            (err as { status?: number }).status,
            err,
          );
        const why = err instanceof Error ? err.message : String(err);
        return {
          ok: false,
          schemaId,
          error: `value does not decode with schema ${schemaId} (${format}): ${why}`,
        };
      }
    },
  };
}
