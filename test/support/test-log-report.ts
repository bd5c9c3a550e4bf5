import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Mocha from 'mocha';
import type { TestLog } from './test-log';

const { EVENT_RUN_END, EVENT_TEST_FAIL, EVENT_TEST_PASS } = Mocha.Runner.constants;

/** Options of reportTestLogs. */
export interface TestLogReportOptions {
  /**
   * The most lines a failing test prints: its last ones (the failure is usually near the
   * end), so that the failure stays readable. A longer log is written whole to a file, whose
   * path is printed. Default: 200.
   */
  showLines?: number;
  /** The folder of those files. Default: a new folder in the OS temp folder, made on first use. */
  dir?: string;
  /** Prints a failing test's log. Default: to stdout, where the spec reporter prints. */
  print?: (text: string) => void;
  /**
   * Called as a test ends, before its lines are taken: a logger that holds entries back (the
   * Temporal Runtime's) hands them over. Default: none.
   */
  flush?: () => void;
}

/**
 * Reports `log` test by test on `runner`: a passing test's lines are dropped unseen, a failing
 * test's (a hook's too) are printed under the reporter's line for it. A test's lines are those
 * logged since the previous test passed or failed, so they include its hooks' (a suite's worker
 * started in `before` logs into the first test's share).
 */
export function reportTestLogs(
  runner: Mocha.Runner,
  log: TestLog,
  options: TestLogReportOptions = {},
): void {
  const showLines = options.showLines ?? 200;
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  let dir = options.dir;
  const take = () => {
    options.flush?.();
    return log.take();
  };
  let failures = 0;
  runner.on(EVENT_TEST_PASS, () => take());
  runner.on(EVENT_TEST_FAIL, (test: Mocha.Runnable) => {
    failures++;
    const { lines, dropped } = take();
    if (lines.length === 0) return;
    let file: string | undefined;
    if (lines.length > showLines || dropped > 0) {
      dir ??= mkdtempSync(join(tmpdir(), 'onceflow-test-logs-'));
      file = join(dir, `${failures}-${slug(test.fullTitle())}.log`);
      writeFileSync(file, `${lines.join('\n')}\n`);
    }
    print(formatTestLog(lines, dropped, showLines, file));
  });
  // After the last test: what its after-all hooks logged passed with them.
  runner.once(EVENT_RUN_END, () => take());
}

/**
 * A failing test's log as printed: a heading, then its last `showLines` lines, each behind a
 * bar and indented under the reporter's line. `file`: where the kept lines were written whole.
 */
function formatTestLog(kept: string[], dropped: number, showLines: number, file?: string): string {
  let shown = kept.slice(-showLines);
  // A cut inside an entry (a stack trace's middle) starts the window at the next entry: a line
  // not indented, and not the `}` that closes an entry.
  const entry = shown.findIndex((l) => /^[^\s}]/.test(l));
  if (shown.length < kept.length && entry > 0) shown = shown.slice(entry);
  const total = kept.length + dropped;
  const where = file
    ? `; ${kept.length === total ? 'all' : `the last ${kept.length}`} in ${file}`
    : '';
  const count = shown.length === total ? `${total}` : `the last ${shown.length} of ${total}`;
  const lines = total === 1 ? 'line' : 'lines';
  const heading = `log of this test's workers and bridges (${count} ${lines}${where}):`;
  return `      ${heading}\n${shown.map((l) => `      | ${l}\n`).join('')}`;
}

/** A file-name-safe form of a test's title. */
function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
}
