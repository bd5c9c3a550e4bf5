import { strict as assert } from 'node:assert';
import {
  differentialCase,
  entityOf,
  MAX_CASE_MS,
  workflowIdPrefix,
  type DiffCase,
} from '../../support/differential/cases';
import { emulateCase, type Emulated } from '../../support/differential/emulate';
import { differences, type Observed } from '../../support/differential/observe';
import { createRealSide, type RealSide } from '../../support/differential/real';
import { uniqueName } from '../../support/services';

/** How many cases, sampled from which seed (DIFF_SEED=<seed> DIFF_CASES=1 replays one). */
const CASES = Number(process.env.DIFF_CASES ?? 30);
const BASE = Number(process.env.DIFF_SEED ?? Math.floor(Math.random() * 1e9));
/** Emulator runs of one case under other delivery orders and attempt times (emulate.ts). */
const VARIANTS = 6;
/** Cases running at once on the server. */
const AT_ONCE = 10;

/** A case of the sample: its emulated run, or why it was left out (cases.ts says which). */
async function sampled(seed: number): Promise<{ dc: DiffCase; emulated: Emulated } | string> {
  const c = differentialCase(seed);
  if ('excluded' in c) return c.excluded;
  const dc: DiffCase = {
    case: c,
    entityId: entityOf(seed),
    workflowId: `${workflowIdPrefix(seed)}${uniqueName('run')}`,
  };
  const emulated = await emulateCase(dc, 0);
  if (emulated.ms > MAX_CASE_MS) return 'longer than MAX_CASE_MS';
  for (let v = 1; v < VARIANTS; v++) {
    const other = await emulateCase(dc, v);
    if (differences(emulated.observed, other.observed).length > 0) return 'a race';
  }
  return { dc, emulated };
}

/**
 * The emulator the property test runs on (test/unit/workflows/run-model.test.ts) is checked
 * against the real Temporal server: generated bodies and fault plans, with the same scripted
 * provider and the same operator on both sides, must make the same calls (activity, key,
 * input), undo the same calls in the same order, show the same keys, recovery points and
 * parks, and end with the same outcome, reason, claim settlement and close status.
 */
describe(`the emulator against the real server (${CASES} generated cases from seed ${BASE})`, function () {
  this.timeout(600_000);
  let real: RealSide;
  after(async () => {
    await real?.close();
  });

  it('every sampled case makes the same calls, undos, keys, parks and outcome on both', async () => {
    const sample: Array<{ dc: DiffCase; emulated: Emulated }> = [];
    const left: Record<string, number> = {};
    const failures: Array<{ seed: number; what: string }> = [];
    for (let seed = BASE; sample.length < CASES && seed < BASE + CASES * 20; seed++) {
      const got = await sampled(seed).catch((err: unknown) => {
        failures.push({ seed, what: `on the emulator: ${String(err)}` });
        return 'an error on the emulator';
      });
      if (typeof got === 'string') left[got] = (left[got] ?? 0) + 1;
      else sample.push(got);
    }
    assert.equal(sample.length, CASES, `only ${sample.length} cases in ${CASES * 20} seeds`);
    real = await createRealSide();
    // A Temporal cancel before the first workflow task: requested while no worker polls.
    for (const { dc } of sample)
      if (dc.case.cancelAt === 0 && dc.case.cancelBy === 'temporal') await real.prestart(dc);
    await real.startWorker();
    const queue = [...sample];
    const runOne = async ({ dc, emulated }: { dc: DiffCase; emulated: Emulated }) => {
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
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await runOne(next);
      }),
    );
    const leftOut = Object.entries(left).map(([why, n]) => `${n} ${why}`);
    failures.sort((a, b) => a.seed - b.seed);
    assert.deepEqual(
      failures.map((f) => `seed ${f.seed}: ${f.what}`),
      [],
      `${sample.length} cases run (left out: ${leftOut.join(', ') || 'none'}); replay one alone: ` +
        `DIFF_SEED=${failures[0]?.seed} DIFF_CASES=1 npm test -- test/integration/workflows/differential.test.ts`,
    );
  });
});
