// The emulator's side of a differential case: the generated body on the scripted runtime
// (test/support/emulator), the same provider and operator as the real side. A variant other
// than 0 picks among deliveries ready at once at random and gives each attempt a time: runs
// of one case under several variants that disagree mean its outcome is a race (cases.ts).
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { createPrng } from '../../../src/util/prng';
import { runWorkflow } from '../../../src/workflows/define-workflow';
import { RUN_FAILED } from '../../../src/workflows/entity-run';
import type { ActivityCall } from '../../../src/workflows/saga-runtime';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { inputOf, scriptedRuntime, START, type Closed } from '../emulator/runtime';
import { approveSignal, definitionOf } from '../run-model/body';
import { randOf } from '../run-model/generate';
import { cancelBeforeStart, type DiffCase } from './cases';
import { createRecorder, observedOf, type Observed } from './observe';
import { createOperator } from './operator';

/** One emulated run: what it showed, and how long it took (virtual ms). */
export interface Emulated {
  observed: Observed;
  ms: number;
}

/** An error of the run that is not one of the ends a run has (a bug of the engine or the test). */
export class UnexpectedEnd extends Error {
  override readonly name = 'UnexpectedEnd';
}

/**
 * How long an attempt takes in variant `variant`: the first attempt of a scheduled activity
 * up to 400 ms (the server's round trip through a workflow task and a poll); a retry of the
 * fast round up to 600 ms (the server retries no sooner than about a second: its 0.5 s
 * backoff takes ~1 s); a retry of a waiting round (1 s interval) up to 40 ms.
 */
function attemptTimes(seed: number, variant: number) {
  const took = randOf(seed * 13 + 5 + variant * 101);
  const seen = new WeakSet<ActivityCall>();
  return (call: ActivityCall) => {
    const first = !seen.has(call);
    seen.add(call);
    return took(first ? 400 : call.round ? 40 : 600);
  };
}

export async function emulateCase(dc: DiffCase, variant: number): Promise<Emulated> {
  const c = dc.case;
  const rec = createRecorder(c);
  const s = scriptedRuntime(
    (call, info) =>
      call.activity === 'act' || call.activity === 'undo'
        ? rec.answer(call, info)
        : rec.provider.answer(call, info),
    {
      idleTurns: 0,
      workflowId: dc.workflowId,
      input: inputOf({ id: dc.entityId, case: c }),
      ...(variant > 0
        ? { rng: createPrng(c.seed * 7 + 1 + variant), attemptMs: attemptTimes(c.seed, variant) }
        : {}),
      child: rec.provider.child,
    },
  );
  const closed = s.start((rt, input) => runWorkflow(definitionOf(c) as never, input as never, rt));
  let done = false;
  void closed.then(() => (done = true));
  // A cancel before the start is in history before the run's first task, as on the server
  // (the cancel signal first: the real side's signalWithStart carries it).
  if (cancelBeforeStart(c) === 'signal')
    s.signalBeforeStart('cancel', { reason: 'model', by: 'model' });
  else if (cancelBeforeStart(c) === 'temporal') s.cancel();
  for (const name of c.approved)
    s.signalBeforeStart(approveSignal(name).name, { by: `approver of ${name}` });
  const operate = createOperator(c.seed, dc.entityId, rec.provider);
  const parks: string[] = [];
  const status = () => s.query<SagaStatus>(statusQuery.name);
  for (;;) {
    await s.idle();
    if (done) break;
    if (s.status().stuck) throw new UnexpectedEnd(`stuck: ${s.status().stuck}`);
    const step = status().parked?.step;
    if (!step)
      throw new UnexpectedEnd(`idle, not ended and nothing parked (step ${status().step})`);
    const move = operate(step);
    parks.push(move.said);
    s.signal(move.signal, move.arg);
  }
  return {
    observed: observedOf(dc.case, rec, status(), {
      parks,
      settled: rec.provider.settlements.at(-1)?.settled,
      ...endOf(await closed),
    }),
    ms: s.now() - START,
  };
}

/** How the run closed, as the server's close status and failure message say. */
function endOf(done: Closed): Pick<Observed, 'close' | 'reason'> {
  switch (done.status) {
    case 'completed':
      return { close: 'Completed', reason: (done.result as { reason?: string }).reason };
    // A run cancelled through Temporal says nothing more: the server keeps no message for it.
    case 'canceled':
      if (done.error instanceof CancelledFailure) return { close: 'Canceled', reason: undefined };
      break;
    case 'failed':
      if (done.error instanceof ApplicationFailure && done.error.type === RUN_FAILED)
        return { close: 'Failed', reason: done.error.message };
      break;
  }
  throw new UnexpectedEnd(`the run ended ${done.status}: ${JSON.stringify(done)}`);
}
