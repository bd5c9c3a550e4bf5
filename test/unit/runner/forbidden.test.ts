import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

/** `npm test -- <file>` on one fixture: exit code, everything printed, the summary line. */
function runTests(
  fixture: string,
): Promise<{ code: number | null; output: string; summary: string | undefined }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'test/run.ts', `test/unit/runner/fixtures/${fixture}`],
      { cwd: ROOT, timeout: 60_000 },
      (err, stdout, stderr) =>
        done({
          code: err ? ((err as { code?: number }).code ?? null) : 0,
          output: stdout + stderr,
          summary: stdout.trim().split('\n').at(-1),
        }),
    );
  });
}

describe('test runner: a test that would not run fails the run', function () {
  this.timeout(120_000);

  it('a stray it.only fails the run and names its file and line', async () => {
    const run = await runTests('only.ts');
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /`\.only` is forbidden .* at \S*only\.ts:7:\d+/);
    assert.equal(run.summary, '0 passed, 1 failed');
  });

  it('it.skip, xit, this.skip() and an it without a body each fail; the others still run', async () => {
    const run = await runTests('pending.ts');
    assert.equal(run.code, 1, run.output);
    for (const title of [
      'skipped with it.skip',
      'skipped with xit',
      'pending: no body',
      'skips itself',
    ])
      assert.match(run.output, new RegExp(`${title}:\\s+Error: Pending test forbidden`), title);
    assert.match(run.output, /4 skipped or pending test\(s\) failed the run/);
    assert.equal(run.summary, '1 passed, 4 failed');
  });

  it('a describe.skip fails the run and names its file and line', async () => {
    const run = await runTests('skipped-suite.ts');
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /skipped suite .* is forbidden.* at \S*skipped-suite\.ts:5:\d+/);
    assert.equal(run.summary, '0 passed, 1 failed');
  });
});
