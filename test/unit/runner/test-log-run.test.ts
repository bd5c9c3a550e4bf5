import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

describe('test runner: a worker log shows only with a failing test', function () {
  this.timeout(120_000);
  let output = '';
  let summary: string | undefined;

  before(async () => {
    // test/run.ts on a fixture whose tests log through the Temporal Runtime and a child process.
    ({ output, summary } = await new Promise<{ output: string; summary?: string }>((done) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'test/run.ts', 'test/unit/runner/fixtures/logs.ts'],
        { cwd: ROOT, timeout: 60_000 },
        (_err, stdout, stderr) =>
          done({ output: stdout + stderr, summary: stdout.trim().split('\n').at(-1) }),
      );
    }));
  });

  it('runs the fixture: one test passes, two fail', () => {
    assert.equal(summary, '1 passed, 2 failed', output);
  });

  it("prints nothing of a passing test's log", () => {
    assert.doesNotMatch(output, /warning of the passing test|an expected decline/, output);
  });

  it("prints a failing test's worker log, stack trace included, under the test", () => {
    assert.match(
      output,
      /1\) fails after its worker warned\n\s+log of this test's workers and bridges \(\d+ lines\):\n\s+\| \S+Z \[WARN\] warning of the failing test \{\n\s+\|\s+error: Error: a fault the test injected\n\s+\|\s+at /,
      output,
    );
  });

  it("prints a failing test's worker process output, tagged with its pid", () => {
    assert.match(
      output,
      /2\) fails after its worker process printed\n\s+log of this test's workers and bridges \(1 line\):\n\s+\| \[worker \d+\] line of the worker process\n/,
      output,
    );
  });
});
