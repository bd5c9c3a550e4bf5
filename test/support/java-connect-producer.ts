import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { findJava, MIN_REGISTRY_JAVA } from '../../harness/stack/java';
import { mavenJars } from './java-maven';

const JAVA_DIR = resolve(__dirname, 'java');
const SOURCE = join(JAVA_DIR, 'ConnectOutboxProducer.java');

/** How Kafka Connect converts a key or value (its `key.converter` / `value.converter`). */
export type ConnectConverter =
  /** JsonConverter with `schemas.enable=true` (Connect's default): `{schema, payload}`. */
  | 'json-schemas'
  /** JsonConverter with `schemas.enable=false`: the JSON value alone. */
  | 'json-plain'
  /** A registry's Avro converter (keys only here): the wire format, Confluent-compatible. */
  | 'avro';

/** One outbox row as Debezium's outbox event router turns it into a record. */
export interface OutboxRow {
  keyConverter: ConnectConverter;
  valueConverter: Exclude<ConnectConverter, 'avro'>;
  aggregateId: string;
  eventId: string;
  eventType: string;
  /** The payload column: JSON text. */
  payload: string;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/**
 * Writes outbox records as a Kafka Connect worker running Debezium's outbox event router does,
 * through Kafka's own converters from Maven Central (JsonConverter, SimpleHeaderConverter) and,
 * for a registry-framed key, Apicurio's Avro serializer (test/support/java/
 * ConnectOutboxProducer.java). Resolves once every record is acknowledged.
 */
export async function produceAsKafkaConnect(options: {
  brokers: string[];
  /** The registry's Confluent-compatible API (SCHEMA_REGISTRY_URL); its v3 API is beside it. */
  registryUrl: string;
  topic: string;
  rows: OutboxRow[];
}): Promise<void> {
  const [jars, java] = await Promise.all([
    mavenJars('connect-converters', join(JAVA_DIR, 'connect')),
    findJava(MIN_REGISTRY_JAVA),
  ]);
  const v3 = options.registryUrl.replace(/\/apis\/ccompat\/v7\/?$/, '/apis/registry/v3');
  const child = spawn(java, [
    '-cp',
    join(jars, '*'),
    SOURCE,
    options.brokers.join(','),
    v3,
    options.topic,
  ]);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`ConnectOutboxProducer still running after 90 s:\n${output}`));
    }, 90_000);
    child.once('error', (err) => (clearTimeout(timer), fail(err)));
    child.once('exit', (code) => (clearTimeout(timer), done(code)));
  });
  child.stdin.end(
    options.rows
      .map((r) =>
        [r.keyConverter, r.valueConverter, r.aggregateId, r.eventId, r.eventType, r.payload]
          .map(b64)
          .join('\t'),
      )
      .join('\n') + '\n',
  );
  const code = await exited;
  if (code !== 0 || !output.includes(`sent ${options.rows.length}`))
    throw new Error(`ConnectOutboxProducer exited ${code}:\n${output}`);
}
