import { runCase } from '../../support/run-model/run-case';

/**
 * How many cases, from which seed (RUN_MODEL_SEED replays one: RUN_MODEL_CASES=1 with
 * RUN_MODEL_HEAVY=0, or RUN_MODEL_CASES=0 with RUN_MODEL_HEAVY=1 for a heavy one;
 * RUN_MODEL_VERBOSE=1 prints each case's end, RUN_MODEL_DUMP=1 its activations). Heavy cases
 * push a run to one of Temporal's limits: thousands of sleeps, children or operator retries;
 * 50 MB of payloads; a payload over 2 MB; a task completion over 4 MB; a fan-out of a
 * thousand calls; a fan-out past the history budget.
 */
const CASES = Number(process.env.RUN_MODEL_CASES ?? 1000);
const HEAVY = Number(process.env.RUN_MODEL_HEAVY ?? 24);
const BASE = Number(process.env.RUN_MODEL_SEED ?? Math.floor(Math.random() * 1e9));

/** Runs `n` cases from BASE; throws naming the first three that broke an invariant. */
async function sweep(n: number, heavy: boolean): Promise<void> {
  const failures: Array<{ seed: number; bad: string[] }> = [];
  for (let i = 0; i < n && failures.length < 3; i++) {
    const seed = BASE + i;
    const bad = await runCase(seed, heavy);
    if (bad.length > 0) failures.push({ seed, bad });
  }
  if (failures.length === 0) return;
  const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s);
  const again = heavy
    ? 'RUN_MODEL_CASES=0 RUN_MODEL_HEAVY=1'
    : 'RUN_MODEL_CASES=1 RUN_MODEL_HEAVY=0';
  throw new Error(
    [
      `${failures.length} ${heavy ? 'heavy ' : ''}case(s) broke invariants:`,
      ...failures.map((f) => `  seed ${f.seed}: ${f.bad.slice(0, 4).map(cut).join('\n    ')}`),
      `replay one alone: RUN_MODEL_SEED=${failures[0]!.seed} ${again} npx tsx test/run.ts test/unit/workflows/run-model.test.ts`,
    ].join('\n'),
  );
}

/**
 * Seeds that once broke an invariant, each replayed on every run: 762748780 (a reset's run
 * sends an undo again, knowing its call's result where the old run did not), 34610248 (a long
 * item hashed in its key beside an item spelled like that hash, one resolved with a result),
 * 162877898 (a Temporal cancel, undos sent, then a reset to before the cancel: the reset run
 * completes over the old run's unwind, which the judge leaves to the old run), 588217973 (the
 * same with a resolve by result in the reset run, of a call the old run undid not knowing it),
 * 820469595 (an approval update the old run accepted, reapplied by the reset as admitted
 * before its wait opens: the reset run goes another way, and the old run's step is its own).
 * They reproduce those runs only while the generator makes the same case of a seed.
 */
const PINNED = [762748780, 34610248, 162877898, 588217973, 820469595];

describe(`a run's phases against a model on a Temporal as strict as the server (seed ${BASE})`, () => {
  it(`the ${PINNED.length} seeds that once broke an invariant keep them all`, async () => {
    const bad = [];
    for (const seed of PINNED)
      for (const b of await runCase(seed, false)) bad.push(`seed ${seed}: ${b}`);
    if (bad.length > 0) throw new Error(bad.join('\n'));
  });

  it(`${CASES} generated cases keep every invariant: one intent per key, never terminated or stuck, effects undone once when the run does not complete and only those that ran, undos built from resolved results, claims first, the predicted outcome, the history replays`, async function () {
    this.timeout(600_000);
    await sweep(CASES, false);
  });

  it(`${HEAVY} heavy cases, each pushing a run to one of Temporal's limits, keep them too`, async function () {
    this.timeout(600_000);
    await sweep(HEAVY, true);
  });
});
