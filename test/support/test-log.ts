import type { Readable } from 'node:stream';
import { inspect } from 'node:util';
import { DefaultLogger, Runtime, type LogEntry, type RuntimeOptions } from '@temporalio/worker';
import pino, { type Logger } from 'pino';

/**
 * What the workers, bridges and worker processes of the running test log. Their expected
 * failures (declines, poison, faults a test injects) are logged with whole stack traces, as in
 * production; printed live they buried the spec reporter's output (tens of thousands of lines
 * per run). Kept here instead, the runner drops a passing test's lines and prints a failing
 * test's with its failure (test/support/test-log-report.ts).
 */
export class TestLog {
  private lines: string[] = [];
  private dropped = 0;

  /** @param keepLines the most lines kept for one test: the latest; earlier ones are counted. */
  constructor(private readonly keepLines = 5000) {}

  /** Appends `text` (one or more lines), each line tagged `[source]` when a source is named. */
  write(text: string, source?: string): void {
    for (const line of text.replace(/\n$/, '').split('\n'))
      this.lines.push(source === undefined ? line : `[${source}] ${line}`);
    const over = this.lines.length - this.keepLines;
    if (over > 0) {
      this.lines.splice(0, over);
      this.dropped += over;
    }
  }

  /** The lines kept since the last take and how many earlier ones were dropped; empties the log. */
  take(): { lines: string[]; dropped: number } {
    const taken = { lines: this.lines, dropped: this.dropped };
    this.lines = [];
    this.dropped = 0;
    return taken;
  }
}

/** The one log of this test process: the runner reports it, test support writes to it. */
export const testLog = new TestLog();

/**
 * A Temporal Runtime logger for the test process: warnings and errors (as before, so no detail
 * is lost) into `log`, formatted like the SDK's default logger, without colours.
 */
export function runtimeLoggerInto(log: TestLog = testLog): DefaultLogger {
  return new DefaultLogger('WARN', (entry: LogEntry) => {
    const at = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
    const meta = entry.meta === undefined ? '' : ` ${inspect(entry.meta)}`;
    log.write(`${at} [${entry.level}] ${entry.message}${meta}`);
  });
}

/**
 * Options of the test process' Temporal Runtime: its logger writes into `log`, and the SDK
 * core's own warnings (a workflow task a test makes fail, say) are forwarded to it rather
 * than printed by the core on stderr.
 */
export function testRuntimeOptions(log: TestLog = testLog): RuntimeOptions {
  return { logger: runtimeLoggerInto(log), telemetryOptions: { logging: { forward: {} } } };
}

/**
 * Hands the entries the Runtime's logger holds on to its downstream logger: with forwarding
 * on, it keeps each entry 100 ms to sort the core's and the SDK's by time, so a test's last
 * warnings would otherwise reach the test log after the test has ended.
 */
export function flushRuntimeLog(): void {
  const { logger } = Runtime.instance();
  if ('flush' in logger && typeof logger.flush === 'function') logger.flush();
}

/**
 * A pino logger for an in-process bridge or sandbox of a test: warnings and errors into the
 * test log. `BRIDGE_TEST_LOG=<level>` prints that level live instead, to watch a test run.
 */
export function testPinoLogger(name: string, log: TestLog = testLog): Logger {
  const live = process.env.BRIDGE_TEST_LOG;
  if (live) return pino({ name, level: live });
  return pino({ name, level: 'warn' }, { write: (line: string) => log.write(line) });
}

/**
 * Keeps a child process' stdout and stderr in the test log, line by line, tagged
 * `[source pid]`: a worker or bridge process a test starts is shown with that test's failure.
 */
export function logChildOutput(
  child: { pid?: number; stdout: Readable | null; stderr: Readable | null },
  source: string,
  log: TestLog = testLog,
): void {
  const tag = `${source} ${child.pid ?? '?'}`;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    // A chunk may end inside a line: its start waits for the rest (or the stream's end).
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const cut = text.lastIndexOf('\n');
      partial = text.slice(cut + 1);
      if (cut >= 0) log.write(text.slice(0, cut), tag);
    });
    stream.on('end', () => {
      if (partial) log.write(partial, tag);
      partial = '';
    });
  }
}
