import { strict as assert } from 'node:assert';
import { cancelBeforeStart } from '../../support/differential/cases';
import { differences, type Observed } from '../../support/differential/observe';
import { createRealSide, type RealSide } from '../../support/differential/real';
import { drawSample, type Sampled } from '../../support/differential/sample';

/** How many cases, sampled from which seed (DIFF_SEED=<seed> DIFF_CASES=1 replays one). */
const CASES = Number(process.env.DIFF_CASES ?? 40);
const BASE = Number(process.env.DIFF_SEED ?? Math.floor(Math.random() * 1e9));
/** Cases running at once on the server. */
const AT_ONCE = 10;

/**
 * The emulator the property test runs on (test/unit/workflows/run-model.test.ts) is checked
 * against the real Temporal server: generated bodies and fault plans, with the same scripted
 * provider and the same operator on both sides, must make the same calls (activity, key,
 * input) as often, undo the same calls in the same order, show the same keys, recovery points
 * and parks, and end with the same outcome, reason, claim settlement and close status.
 */
describe(`the emulator against the real server (${CASES} generated cases from seed ${BASE})`, function () {
  this.timeout(600_000);
  let real: RealSide;
  after(async () => {
    await real?.close();
  });

  it('every sampled case makes the same calls, undos, keys, parks and outcome on both', async () => {
    const { sample, leftOut, failures } = await drawSample(BASE, CASES);
    assert.equal(sample.length, CASES, `only ${sample.length} cases in ${CASES * 20} seeds`);
    real = await createRealSide();
    // A Temporal cancel before the first workflow task: requested while no worker polls.
    for (const { dc } of sample)
      if (cancelBeforeStart(dc.case) === 'temporal') await real.prestart(dc);
    await real.startWorker();
    const runOne = async ({ dc, emulated }: Sampled) => {
      const seed = dc.case.seed;
      let server: Observed;
      try {
        server = await real.run(dc);
      } catch (err) {
        failures.push({ seed, what: `on the server: ${String(err)}` });
        return;
      }
      const diff = differences(emulated.observed, server);
      if (diff.length > 0)
        failures.push({ seed, what: `${dc.workflowId} differs:\n  ${diff.join('\n  ')}` });
    };
    const queue = [...sample];
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await runOne(next);
      }),
    );
    failures.sort((a, b) => a.seed - b.seed);
    assert.deepEqual(
      failures.map((f) => `seed ${f.seed}: ${f.what}`),
      [],
      `${sample.length} cases run (left out: ${leftOut}); replay one alone: ` +
        `DIFF_SEED=${failures[0]?.seed} DIFF_CASES=1 npm test -- test/integration/workflows/differential.test.ts`,
    );
  });
});
