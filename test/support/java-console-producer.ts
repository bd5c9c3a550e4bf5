import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { stackPaths } from '../../harness/stack/paths';

/** Compression codecs as Kafka's Java producer names them. */
export const JAVA_CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type JavaCodec = (typeof JAVA_CODECS)[number];

/** The field that kafka.tools.ConsoleProducer reads as null (key, value or a header value). */
export const JAVA_NULL = '<null>';

/** One message as a line of ConsoleProducer input. */
export interface JavaLine {
  /** In order; a value of null is sent as a null header value (JAVA_NULL). */
  headers: Array<[string, string | null]>;
  key: string | null;
  value: string | null;
}

export interface JavaProduceOptions {
  brokers: string[];
  topic: string;
  codec: JavaCodec;
  lines: JavaLine[];
  /** Default: 60 s (one JVM start plus the sends). */
  timeoutMs?: number;
}

/**
 * Formats a line for ConsoleProducer's LineMessageReader with parse.key and parse.headers:
 * `h1:v1,h2:v2<TAB>key<TAB>value`. Header names and values must not contain `,`, `:` or a tab,
 * keys and values no tab: the reader has no escaping.
 */
export function formatJavaLine(line: JavaLine): string {
  const forbidden = (s: string, chars: RegExp, what: string) => {
    if (chars.test(s))
      throw new Error(`${what} ${JSON.stringify(s)} cannot be written by ConsoleProducer`);
    return s;
  };
  const headers = line.headers
    .map(
      ([k, v]) =>
        `${forbidden(k, /[,:\t]/, 'header name')}:${v === null ? JAVA_NULL : forbidden(v, /[,:\t]/, 'header value')}`,
    )
    .join(',');
  const key = line.key === null ? JAVA_NULL : forbidden(line.key, /\t/, 'key');
  const value = line.value === null ? JAVA_NULL : forbidden(line.value, /[\t\n]/, 'value');
  return `${headers}\t${key}\t${value}`;
}

/**
 * Sends `lines` with Kafka's own Java console producer (kafka.tools.ConsoleProducer, from the
 * jars of the dev stack), compressed with `codec`: a client no one here wrote, with Java's
 * batching and its codecs' framing (snappy-java's xerial stream, LZ4 frames, zstd).
 */
export async function produceWithJava(options: JavaProduceOptions): Promise<void> {
  const args = [
    '-cp',
    join(stackPaths().kafkaLibs, '*'),
    'kafka.tools.ConsoleProducer',
    '--bootstrap-server',
    options.brokers.join(','),
    '--topic',
    options.topic,
    '--compression-codec',
    options.codec,
    '--request-required-acks',
    'all',
    '--property',
    'parse.key=true',
    '--property',
    'parse.headers=true',
    '--property',
    `null.marker=${JAVA_NULL}`,
  ];
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timeoutMs = options.timeoutMs ?? 60_000;
  const exited = new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `ConsoleProducer (${options.codec}) still running after ${timeoutMs} ms:\n${output}`,
        ),
      );
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  child.stdin.end(options.lines.map((l) => `${formatJavaLine(l)}\n`).join(''));
  const code = await exited;
  // ConsoleProducer logs send failures but may still exit 0; any ERROR line is a failure.
  if (code !== 0 || /ERROR|Exception/.test(output)) {
    throw new Error(`ConsoleProducer (${options.codec}) exited ${code}:\n${output}`);
  }
}
