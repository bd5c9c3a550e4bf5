import { strict as assert } from 'node:assert';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { createPrng } from '../../../src/util/prng';
import { RUN_FAILED } from '../../../src/workflows/entity-run';
import { runWorkflow } from '../../../src/workflows/define-workflow';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { stepKey } from '../../../src/workflows/step-key';
import { inputOf, scriptedRuntime, type Scripted } from '../../support/emulator/runtime';
import { approveSignal, definitionOf } from '../../support/run-model/body';
import { generateCase, randOf, type Case } from '../../support/run-model/generate';
import { ENTITY, judge } from '../../support/run-model/judge';
import { createProvider } from '../../support/run-model/provider';

/** How many cases, from which seed (RUN_MODEL_SEED replays one: RUN_MODEL_CASES=1). */
const CASES = Number(process.env.RUN_MODEL_CASES ?? 1000);
const BASE = Number(process.env.RUN_MODEL_SEED ?? Math.floor(Math.random() * 1e9));
/** A generated run never needs more history than this (it would be a loop of our own). */
const HISTORY_CEILING = 3000;

const emulate = (
  c: Case,
  answer: Parameters<typeof scriptedRuntime>[0],
  replay?: Scripted['log'],
) => {
  const pick = createPrng(c.seed * 7 + 1);
  const took = randOf(c.seed * 13 + 5);
  const s = scriptedRuntime(answer, {
    idleTurns: 0,
    rng: pick,
    // A settlement's attempt is slow, so a cancel lands while it is in flight now and then.
    attemptMs: (call) => took(call.activity === 'settleClaim' ? 30_000 : 400),
    child: (call) => {
      if (c.failingChildren.some((n) => call.workflowId.endsWith(`/${n}`)))
        throw ApplicationFailure.create({ type: 'KidFailed', message: 'the child failed' });
      return {};
    },
    ...(replay ? { replay } : {}),
  });
  for (const name of c.approved)
    s.signalBeforeStart(approveSignal(name).name, { by: `approver of ${name}` });
  return s;
};

/** Runs one generated case to its end, an operator answering every park; returns what broke. */
async function runCase(seed: number): Promise<string[]> {
  const c = generateCase(seed);
  const definition = definitionOf(c);
  // The provider orders its attempts among the run's deliveries (the log grows as it runs).
  const log: Scripted['log'][] = [];
  const provider = createProvider(c, () => log[0]!.length);
  const scripted = emulate(c, provider.answer);
  log.push(scripted.log);
  if (c.cancelAt !== undefined)
    scripted.at(scripted.now() + c.cancelAt, () =>
      c.cancelBy === 'temporal'
        ? scripted.cancel()
        : scripted.signal('cancel', { reason: 'model', by: 'model' }),
    );
  let done = false;
  const running = runWorkflow(definition as never, inputOf({ id: ENTITY }), scripted.runtime).then(
    (r) => ({ outcome: r.outcome, reason: r.reason }),
    (err: unknown) => ({ err }),
  );
  void running.finally(() => (done = true));
  const operator = randOf(seed + 1);
  const bad: string[] = [];
  for (let round = 0; !done; round++) {
    await scripted.idle();
    if (done) break;
    const status = scripted.query<SagaStatus>(statusQuery.name);
    const step = status.parked?.step;
    if (!step) {
      bad.push(`idle, not ended and nothing parked (step ${status.step})`);
      return bad;
    }
    const choice =
      round > 5 ? 'resolve' : (['retry', 'retry', 'resolve', 'cancel'] as const)[operator(4)]!;
    if (choice === 'retry') {
      const [name, ...item] = step.split(':');
      const rec = provider.keys.get(
        stepKey('model', ENTITY, name!, item.length ? item.join(':') : undefined),
      );
      if (rec && operator(2) === 0) rec.cleared = true;
      scripted.signal('retryStep', { by: 'operator', step });
    } else if (choice === 'resolve') scripted.signal('resolveStep', { by: 'operator', step });
    else scripted.signal('cancel', { reason: 'operator', by: 'operator' });
  }
  const ended = await running;
  let outcome: string;
  let reason: string | undefined;
  if ('outcome' in ended) ({ outcome, reason } = ended);
  else if (ended.err instanceof CancelledFailure) outcome = 'cancelled';
  else if (ended.err instanceof ApplicationFailure && ended.err.type === RUN_FAILED)
    outcome = 'failed';
  else return [...bad, `ended with ${String(ended.err)}`];
  const status = scripted.query<SagaStatus>(statusQuery.name);
  if (process.env.RUN_MODEL_VERBOSE)
    process.stdout.write(
      `seed ${seed}: ${outcome}, ${scripted.log.length} deliveries, ${scripted.history()} events, ${provider.attempts.length} provider attempts\n`,
    );
  bad.push(
    ...judge(c, {
      outcome,
      reason,
      provider,
      log: scripted.log,
      recoveryPoints: status.recoveryPoints,
      operatorActions: status.operatorActions ?? [],
    }),
  );
  if (scripted.history() > HISTORY_CEILING) bad.push(`history ${scripted.history()} events`);
  // A worker restarted at these points replays the run from history: the same commands.
  for (const k of [...c.restarts, scripted.log.length]) {
    if (k > scripted.log.length) continue;
    const again = emulate(
      c,
      () => {
        throw new Error('a replay attempts nothing');
      },
      scripted.log.slice(0, k),
    );
    void runWorkflow(definition as never, inputOf({ id: ENTITY }), again.runtime).catch(
      () => undefined,
    );
    try {
      await again.idle();
    } catch (err) {
      bad.push(`replayed to delivery ${k}: ${(err as Error).message}`);
    }
  }
  return bad;
}

describe(`a run's phases against a model (${CASES} generated cases from seed ${BASE})`, () => {
  it('every case keeps every invariant: one intent per key, effects undone once when it does not complete, no forward call after a cancel, the predicted outcome, the same commands on replay', async function () {
    this.timeout(600_000);
    const failures: Array<{ seed: number; bad: string[]; body: string }> = [];
    for (let i = 0; i < CASES && failures.length < 3; i++) {
      const seed = BASE + i;
      const bad = await runCase(seed);
      if (bad.length > 0) failures.push({ seed, bad, body: JSON.stringify(generateCase(seed)) });
    }
    assert.deepEqual(
      failures,
      [],
      `replay one alone: RUN_MODEL_SEED=${failures[0]?.seed} RUN_MODEL_CASES=1 npm test -- test/unit/workflows/run-model.test.ts`,
    );
  });
});
