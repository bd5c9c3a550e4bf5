import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { IHeaders } from 'kafkajs';
import { findJava, MIN_REGISTRY_JAVA } from '../../harness/stack/java';
import { mavenJars } from './java-maven';

const JAVA_DIR = resolve(__dirname, 'java');
const SOURCE = join(JAVA_DIR, 'RegistryProducer.java');
const SERDES = join(JAVA_DIR, 'serdes');

/** One record: its key, headers (text) and value as JSON (Avro's JSON encoding, or Protobuf's). */
export interface SerdeRecord {
  key: string;
  headers: IHeaders;
  json: unknown;
  /** The value's JSON as text instead of `json` (numbers beyond 2^53 JSON.stringify cannot write). */
  jsonText?: string;
}

export interface SerdeProduceOptions {
  brokers: string[];
  /** The registry's Confluent-compatible API (SCHEMA_REGISTRY_URL); its v3 API is beside it. */
  registryUrl: string;
  topic: string;
  format: 'avro' | 'protobuf';
  /** The schema's text: Avro JSON or a .proto file (its first message is written, or `message`). */
  schema: string;
  /** Files the .proto imports, by import path (registered as references by the serde). */
  imports?: Record<string, string>;
  /**
   * Apicurio's own framing instead of the Confluent-compatible one: the ID in the
   * `apicurio.value.<headers>` header, the payload alone, Protobuf with its type reference.
   */
  headers?: 'contentId' | 'globalId';
  /** `defaults`: none of the framing settings, the serde's own 3.x defaults. */
  framing?: 'defaults';
  /** `latest`: write with the subject's latest schema, registered beforehand (no auto-register). */
  register?: 'auto' | 'latest';
  /** The Protobuf message to write (a top-level one); default the file's first. */
  message?: string;
  records: SerdeRecord[];
}

/** Apicurio's serdes and their Kafka client, resolved once from Maven Central into the cache. */
const serdeJars = () => mavenJars('apicurio-serdes', SERDES);

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function headerField(headers: IHeaders): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}=${Buffer.from(String(value)).toString('base64')}`)
    .join(';');
}

/**
 * Writes `records` with Apicurio Registry's own Java serializers (AvroKafkaSerializer,
 * ProtobufKafkaSerializer from Maven Central), in Confluent-compatible mode unless `headers`
 * says otherwise, through the Java 21+
 * the stack's registry runs on: a serializer no one here wrote. Resolves once every record is
 * acknowledged (acks=all).
 */
export async function produceWithApicurioSerde(options: SerdeProduceOptions): Promise<void> {
  const [jars, java] = await Promise.all([serdeJars(), findJava(MIN_REGISTRY_JAVA)]);
  const v3 = options.registryUrl.replace(/\/apis\/ccompat\/v7\/?$/, '/apis/registry/v3');
  const child = spawn(java, [
    '-cp',
    join(jars, '*'),
    SOURCE,
    options.brokers.join(','),
    v3,
    options.topic,
    options.format,
    b64(options.schema),
    ...Object.entries(options.imports ?? {}).map(([path, text]) => `ref:${path}=${b64(text)}`),
    ...(options.headers ? [`headers=${options.headers}`] : []),
    ...(options.register ? [`register=${options.register}`] : []),
    ...(options.message ? [`message=${options.message}`] : []),
    ...(options.framing ? [`framing=${options.framing}`] : []),
  ]);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  // Well inside a test's timeout, so a JVM that hangs fails with its own output.
  const exited = new Promise<number | null>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`RegistryProducer still running after 90 s:\n${output}`));
    }, 90_000);
    child.once('error', (err) => (clearTimeout(timer), fail(err)));
    child.once('exit', (code) => (clearTimeout(timer), done(code)));
  });
  child.stdin.end(
    options.records
      .map(
        (r) =>
          `${b64(r.key)}\t${headerField(r.headers)}\t${b64(r.jsonText ?? JSON.stringify(r.json))}\n`,
      )
      .join(''),
  );
  const code = await exited;
  if (code !== 0 || !output.includes(`sent ${options.records.length}`))
    throw new Error(`RegistryProducer (${options.format}) exited ${code}:\n${output}`);
}
