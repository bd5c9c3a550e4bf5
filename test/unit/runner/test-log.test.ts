import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Mocha from 'mocha';
import { logChildOutput, runtimeLoggerInto, TestLog } from '../../support/test-log';
import { reportTestLogs } from '../../support/test-log-report';

const { EVENT_RUN_END, EVENT_TEST_FAIL, EVENT_TEST_PASS } = Mocha.Runner.constants;

/** A runner (never run: the test emits its events), a log reported on it, and what it printed. */
function reported(options: { showLines?: number; dir?: string } = {}) {
  const suite = new Mocha.Suite('a suite');
  const runner = new Mocha.Runner(suite);
  const log = new TestLog(50);
  const printed: string[] = [];
  reportTestLogs(runner, log, { ...options, print: (text) => printed.push(text) });
  const test = (title: string) => {
    const t = new Mocha.Test(title, () => undefined);
    suite.addTest(t);
    return t;
  };
  return { runner, log, printed, test };
}

describe('test log: lines kept per test, printed only for a failure', () => {
  it('keeps lines tagged by source and empties itself when taken', () => {
    const log = new TestLog();
    log.write('one\ntwo\n', 'worker 7');
    log.write('three');
    assert.deepEqual(log.take(), {
      lines: ['[worker 7] one', '[worker 7] two', 'three'],
      dropped: 0,
    });
    assert.deepEqual(log.take(), { lines: [], dropped: 0 });
  });

  it('keeps the latest lines of a runaway log and counts the dropped ones', () => {
    const log = new TestLog(3);
    for (let i = 1; i <= 5; i++) log.write(`line ${i}`);
    assert.deepEqual(log.take(), { lines: ['line 3', 'line 4', 'line 5'], dropped: 2 });
  });

  it("drops a passing test's lines unprinted", () => {
    const { runner, log, printed, test } = reported();
    log.write('warning of the passing test');
    runner.emit(EVENT_TEST_PASS, test('passes'));
    assert.deepEqual(printed, []);
    runner.emit(EVENT_TEST_FAIL, test('fails'), new Error('boom'));
    assert.deepEqual(printed, [], 'the passing test left nothing for the next failure');
  });

  it("prints a failing test's lines, those of its hooks included", () => {
    const { runner, log, printed, test } = reported();
    log.write('logged while the worker started, in a before hook');
    log.write('warning of the failing test');
    runner.emit(EVENT_TEST_FAIL, test('fails'), new Error('boom'));
    assert.deepEqual(printed, [
      "      log of this test's workers and bridges (2 lines):\n" +
        '      | logged while the worker started, in a before hook\n' +
        '      | warning of the failing test\n',
    ]);
  });

  it('prints the last lines of a long log and writes what was kept to a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'test-log-'));
    try {
      const { runner, log, printed, test } = reported({ showLines: 2, dir });
      for (let i = 1; i <= 60; i++) log.write(`line ${i}`);
      runner.emit(EVENT_TEST_FAIL, test('fails loudly'), new Error('boom'));
      const [heading, ...shown] = printed[0]!.trimEnd().split('\n');
      assert.deepEqual(shown, ['      | line 59', '      | line 60']);
      assert.equal(
        heading,
        `      log of this test's workers and bridges (the last 2 of 60 lines; the last 50 in ${dir}/1-a-suite-fails-loudly.log):`,
      );
      const kept = [...Array(50)].map((_, i) => `line ${i + 11}`);
      assert.equal(
        readFileSync(join(dir, '1-a-suite-fails-loudly.log'), 'utf8'),
        `${kept.join('\n')}\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts a cut log at an entry, not inside a stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'test-log-'));
    try {
      const { runner, log, printed, test } = reported({ showLines: 3, dir });
      log.write('first [WARN] Activity failed {\n  error: Error: declined\n      at one\n}');
      log.write('second [WARN] Activity failed {}');
      runner.emit(EVENT_TEST_FAIL, test('fails'), new Error('boom'));
      const [heading, ...shown] = printed[0]!.trimEnd().split('\n');
      assert.deepEqual(shown, ['      | second [WARN] Activity failed {}']);
      assert.match(heading!, /\(the last 1 of 5 lines; all in \S+\):$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes what a buffering logger still holds as the test ends', () => {
    const held: string[] = [];
    const runner = new Mocha.Runner(new Mocha.Suite('a suite'));
    const log = new TestLog();
    const printed: string[] = [];
    const flush = () => held.splice(0).forEach((line) => log.write(line));
    reportTestLogs(runner, log, { print: (text) => printed.push(text), flush });
    held.push('held back by the logger');
    runner.emit(EVENT_TEST_FAIL, new Mocha.Test('fails', () => undefined), new Error('boom'));
    assert.match(printed.join(''), /\| held back by the logger\n/);
  });

  it('drops what is logged after the last test when the run ends', () => {
    const { runner, log, printed, test } = reported();
    log.write('logged by an after-all hook');
    runner.emit(EVENT_RUN_END);
    runner.emit(EVENT_TEST_FAIL, test('a late failure'), new Error('boom'));
    assert.deepEqual(printed, []);
  });

  it('formats Runtime log entries as the SDK does, stack traces included', () => {
    const log = new TestLog();
    runtimeLoggerInto(log).warn('Activity failed', { error: new Error('declined') });
    runtimeLoggerInto(log).info('below WARN: not kept');
    const { lines } = log.take();
    assert.match(lines[0]!, /^\S+Z \[WARN\] Activity failed \{$/);
    assert.match(lines[1]!, /^ {2}error: Error: declined$/);
    assert.match(lines[2]!, /^ {6}at /);
    assert.ok(!lines.some((l) => l.includes('not kept')));
  });

  it("keeps a child process' lines whole when a chunk ends inside one", async () => {
    const log = new TestLog();
    const child = { pid: 42, stdout: new PassThrough(), stderr: new PassThrough() };
    logChildOutput(child, 'bridge', log);
    child.stdout.write('first li');
    child.stdout.write('ne\nsecond line\nno newline at the end');
    child.stderr.end('on stderr\n');
    child.stdout.end();
    await Promise.all([once(child.stdout, 'end'), once(child.stderr, 'end')]);
    assert.deepEqual(log.take().lines.sort(), [
      '[bridge 42] first line',
      '[bridge 42] no newline at the end',
      '[bridge 42] on stderr',
      '[bridge 42] second line',
    ]);
  });
});
