import protobufjs from 'protobufjs';
import { SchemaRegistryClient } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { AvroSerializer } from '@confluentinc/schemaregistry/dist/serde/avro';
import {
  SchemaId,
  SerdeType,
  SubjectNameStrategyType,
} from '@confluentinc/schemaregistry/dist/serde/serde';
import { waitForSchemaRegistry } from '../../harness/stack/schema-registry';

/** The stack's registry (Apicurio's Confluent-compatible API), once it answers. */
export async function stackRegistryUrl(): Promise<string> {
  const url = process.env.SCHEMA_REGISTRY_URL;
  if (!url)
    throw new Error(
      'no SCHEMA_REGISTRY_URL: the stack runs no registry (ONCEFLOW_SCHEMA_REGISTRY=off)',
    );
  await waitForSchemaRegistry(url);
  return url;
}

/**
 * A client with a request timeout: without one (axios' default) a request the registry never
 * answers holds the test until mocha's timeout, saying nothing; with it, it fails, is retried
 * (the client's own three retries) and, if it keeps failing, fails the test naming the request.
 */
function clientOf(url: string): SchemaRegistryClient {
  return new SchemaRegistryClient({
    baseURLs: [url],
    createAxiosDefaults: { timeout: 10_000 },
  } as ConstructorParameters<typeof SchemaRegistryClient>[0]);
}

/**
 * Encodes values in the wire format with Confluent's Node serializers: Avro with its schema
 * registered under `<topic>-value` on first use; Protobuf with the .proto registered first and
 * the message type read back from the registry's serialized descriptor (protobuf-es cannot
 * parse .proto text), the way a Node producer with generated code would write it.
 */
export class NodeRegistryProducer {
  private readonly client: SchemaRegistryClient;
  constructor(url: string) {
    this.client = clientOf(url);
  }

  /** Registers `schema` under `<topic>-value` as a Confluent serializer would; its ID. */
  register(topic: string, schemaType: 'AVRO' | 'PROTOBUF', schema: string): Promise<number> {
    return this.client.register(`${topic}-value`, { schemaType, schema });
  }

  /** Avro bytes of `value` under `schema` (an Avro JSON schema), registered if new. */
  async avro(topic: string, schema: string, value: unknown): Promise<Buffer> {
    const id = await this.client.register(`${topic}-value`, { schemaType: 'AVRO', schema });
    // TOPIC names the subject `<topic>-value` without asking the registry: the client's default
    // (ASSOCIATED) first asks an `/associations` endpoint Apicurio does not serve, one more
    // request per value that, on a loaded box, ran into the request timeout.
    const serializer = new AvroSerializer(this.client, SerdeType.VALUE, {
      useSchemaId: id,
      subjectNameStrategyType: SubjectNameStrategyType.TOPIC,
    } as never);
    return serializer.serialize(topic, value);
  }

  /**
   * Protobuf bytes of `json` as the first message of `proto`, registered if new: Confluent's
   * client registers the .proto and writes the wire format's header (SchemaId: magic byte,
   * ID, message indexes), protobufjs encodes the message. (Confluent's ProtobufSerializer reads
   * the schema back in serialized form, which Apicurio does not serve as it expects:
   * src/kafka/registry-protobuf.ts.)
   */
  async protobuf(topic: string, proto: string, json: Record<string, unknown>): Promise<Buffer> {
    const id = await this.client.register(`${topic}-value`, {
      schemaType: 'PROTOBUF',
      schema: proto,
    });
    const parsed = protobufjs.parse(proto, { keepCase: false });
    const ns = parsed.package
      ? (parsed.root.lookup(parsed.package) as protobufjs.Namespace)
      : parsed.root;
    const type = ns.nestedArray.find((n): n is protobufjs.Type => n instanceof protobufjs.Type)!;
    const payload = type.encode(type.fromObject(json)).finish();
    return Buffer.concat([new SchemaId('PROTOBUF', id, undefined, [0]).idToBytes(), payload]);
  }
}
