import { strict as assert } from 'node:assert';
import { runNpmScript, tailOf } from '../../../support/npm-run';

/**
 * `npm run bench:peers` with plain Temporal + kafkajs alone, briefly (its figures stay out of
 * the test): the fourth system runs the workload and every order is charged, mailed and
 * reserved exactly once.
 */
describe('npm run bench:peers -- --systems plain-temporal (a smoke run)', function () {
  this.timeout(8 * 60_000);

  it('runs the workload on plain Temporal and holds the invariants', async () => {
    const run = await runNpmScript('bench:peers', [
      ...['--systems', 'plain-temporal', '--duration', '10s', '--warmup', '2s'],
      ...['--latency-duration', '5s', '--duplicates', '50', '--backlog', '50'],
    ]);
    assert.equal(run.code, 0, `${tailOf(run.stdout)}\n${tailOf(run.stderr)}`);
    assert.match(run.stdout, /^\| plain-temporal \| [\d.]+ \| .* \| ok: \d+ orders/m);
    assert.match(run.stdout, /^\| plain-temporal \| [\d.]+ \(plain-worker [\d.]+, plain-consumer/m);
  });
});
