import { strict as assert } from 'node:assert';
import { runNpmScript, tailOf } from '../../../support/npm-run';

/**
 * `npm run bench -- --only drain` at its smallest (its figures stay out of the test): two
 * variants over prefilled tables, the floor and one rung of its ladder, each row printed.
 */
describe('npm run bench -- --only drain (a smoke run)', function () {
  this.timeout(8 * 60_000);

  it('drains with a variant over prefilled tables and measures a floor rung', async () => {
    const run = await runNpmScript('bench', [
      ...['--only', 'drain', '--drain-orders', '20', '--drain-payouts', '2'],
      ...['--floor-workflows', '20', '--variants', 'product,direct-bare', '--ladder', 'claim'],
      ...['--prefill', '1000'],
    ]);
    assert.equal(run.code, 0, `${tailOf(run.stdout)}\n${tailOf(run.stderr)}`);
    const out = run.stdout;
    for (const row of [/^\| product \| [\d.]+ → [\d.]+ \| [\d.]+ \|/m, /^\| direct-bare \| /m])
      assert.match(out, row);
    assert.match(out, /^\| floor: three no-op activities \| /m);
    assert.match(out, /^\| claim: the claim and its settlement.* \| 25 \|$/m);
    assert.match(out, /^\| onceflow order \| \d+ \| 25 \| 4 \|/m);
    assert.match(out, /^\| product \| processed_events \| 1000 → 10\d\d \|/m);
  });
});
