import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { IHeaders } from 'kafkajs';
import { stackPaths } from '../../harness/stack/paths';

const SOURCE = resolve(__dirname, 'java', 'TransactionalProducer.java');

/** One record as the Java program sends it (key, value and header values as bytes). */
export interface JavaRecord {
  key: string | Buffer | null;
  value: string | Buffer | null;
  headers?: IHeaders;
}

const b64 = (v: string | Buffer | null | undefined) =>
  v === null || v === undefined ? '-' : Buffer.from(v).toString('base64');

/**
 * Kafka's own Java client (kafka-clients from the dev stack's jars) writing with a
 * `transactional.id`, as Kafka Streams, Flink or Debezium do: each transaction ends with a
 * control record (commit or abort marker) on every partition it wrote. Driven through
 * test/support/java/TransactionalProducer.java, one command per line; every method resolves
 * when the Java side answered `ok`.
 */
export class JavaTransactionalProducer {
  private readonly child: ChildProcessWithoutNullStreams;
  private output = '';
  private answered = 0;
  private sent = 0;
  private waiters: Array<{ count: number; done: () => void; fail: (e: Error) => void }> = [];
  private failure: Error | undefined;

  constructor(brokers: string[]) {
    this.child = spawn('java', [
      '-cp',
      join(stackPaths().kafkaLibs, '*'),
      SOURCE,
      brokers.join(','),
    ]);
    this.child.stdout.on('data', (d: Buffer) => this.onOutput(d.toString()));
    this.child.stderr.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child.once('exit', (code) => {
      this.failure ??= new Error(`TransactionalProducer exited ${code}:\n${this.output}`);
      this.settle();
    });
  }

  private onOutput(text: string): void {
    this.output += text;
    for (const line of text.split('\n')) {
      if (line.startsWith('ok ')) this.answered++;
      else if (line.startsWith('error '))
        this.failure = new Error(`TransactionalProducer: ${line}\n${this.output}`);
    }
    this.settle();
  }

  private settle(): void {
    this.waiters = this.waiters.filter((w) => {
      if (this.failure) w.fail(this.failure);
      else if (this.answered >= w.count) w.done();
      else return true;
      return false;
    });
  }

  /** Sends command lines and resolves once each was answered `ok`. */
  private run(lines: string[], timeoutMs = 120_000): Promise<void> {
    this.sent += lines.length;
    const count = this.sent;
    const answered = new Promise<void>((done, fail) => {
      const timer = setTimeout(
        () =>
          fail(new Error(`TransactionalProducer silent after ${timeoutMs} ms:\n${this.output}`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        done: () => (clearTimeout(timer), done()),
        fail: (e) => (clearTimeout(timer), fail(e)),
      });
    });
    this.child.stdin.write(lines.map((l) => `${l}\n`).join(''));
    this.settle();
    return answered;
  }

  /** A producer named `name` with its own transactional.id (initTransactions done). */
  open(name: string, transactionalId: string): Promise<void> {
    return this.run([`open ${name} ${transactionalId}`]);
  }

  begin(name: string): Promise<void> {
    return this.run([`begin ${name}`]);
  }

  /** Sends records to one partition inside the open transaction and flushes them. */
  send(name: string, topic: string, partition: number, records: JavaRecord[]): Promise<void> {
    const lines = records.map((r) => {
      const headers = Object.entries(r.headers ?? {}).map(
        ([k, v]) => `${k}=${b64(Array.isArray(v) ? v[0] : (v as string | Buffer | undefined))}`,
      );
      return ['send', name, topic, partition, b64(r.key), b64(r.value), ...headers].join(' ');
    });
    return this.run([...lines, `flush ${name}`]);
  }

  commit(name: string): Promise<void> {
    return this.run([`commit ${name}`]);
  }

  abort(name: string): Promise<void> {
    return this.run([`abort ${name}`]);
  }

  /** Kills the JVM (a producer that dies with a transaction open). */
  kill(): void {
    this.child.kill('SIGKILL');
  }
}
