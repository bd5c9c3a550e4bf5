// The emulator's side of a differential case: the generated body on the scripted runtime
// (test/support/emulator), the same provider and operator as the real side. A variant other
// than 0 picks among deliveries ready at once at random and gives each attempt a time: runs
// of one case under several variants that disagree mean its outcome is a race (cases.ts).
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { createPrng } from '../../../src/util/prng';
import { runWorkflow } from '../../../src/workflows/define-workflow';
import { RUN_FAILED } from '../../../src/workflows/entity-run';
import type { ActivityCall, SagaRuntime } from '../../../src/workflows/saga-runtime';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { inputOf, scriptedRuntime } from '../emulator/runtime';
import { START } from '../emulator/world';
import { approveSignal, definitionOf } from '../run-model/body';
import { randOf } from '../run-model/generate';
import { cancelBeforeStart, type DiffCase } from './cases';
import { createRecorder, observedOf, type CloseStatus, type Observed } from './observe';
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
  const settlements: string[] = [];
  const s = scriptedRuntime(
    (call, info) => {
      if (call.activity === 'claimEntity') return { kind: 'owner', claim: {} };
      if (call.activity === 'settleClaim') {
        settlements.push((call.input as { settled: string }).settled);
        return { settled: true };
      }
      return rec.answer(call, info);
    },
    {
      idleTurns: 0,
      workflowId: dc.workflowId,
      ...(variant > 0
        ? { rng: createPrng(c.seed * 7 + 1 + variant), attemptMs: attemptTimes(c.seed, variant) }
        : {}),
      child: (call) => {
        if (c.failingChildren.some((n) => call.workflowId.endsWith(`/${n}`)))
          throw ApplicationFailure.create({ type: 'KidFailed', message: 'the child failed' });
        return {};
      },
    },
  );
  for (const name of c.approved)
    s.signalBeforeStart(approveSignal(name).name, { by: `approver of ${name}` });
  let runtime: SagaRuntime = s.runtime;
  if (cancelBeforeStart(c) === 'signal')
    s.signalBeforeStart('cancel', { reason: 'model', by: 'model' });
  else if (cancelBeforeStart(c) === 'temporal')
    // Temporal's cancel requested before the first workflow task: the SDK reports it in that
    // task, once the workflow function has set its handler.
    runtime = {
      ...s.runtime,
      onCancelRequested: (handler) => {
        s.runtime.onCancelRequested(handler);
        queueMicrotask(handler);
      },
    };
  let done = false;
  const running = runWorkflow(
    definitionOf(c) as never,
    inputOf({ id: dc.entityId, case: c }),
    runtime,
  ).then(
    (r) => ({ close: 'Completed' as CloseStatus, reason: r.reason }),
    (err: unknown) => ({ err }),
  );
  void running.finally(() => (done = true));
  const operate = createOperator(c.seed, dc.entityId, rec.provider);
  const parks: string[] = [];
  const status = () => s.query<SagaStatus>(statusQuery.name);
  for (;;) {
    await s.idle();
    if (done) break;
    const step = status().parked?.step;
    if (!step)
      throw new UnexpectedEnd(`idle, not ended and nothing parked (step ${status().step})`);
    const move = operate(step);
    parks.push(move.said);
    s.signal(move.signal, move.arg);
  }
  const ended = await running;
  let end: Pick<Observed, 'close' | 'reason'>;
  if ('close' in ended) end = ended;
  // A run cancelled through Temporal says nothing more: the server keeps no message for it.
  else if (ended.err instanceof CancelledFailure) end = { close: 'Canceled', reason: undefined };
  else if (ended.err instanceof ApplicationFailure && ended.err.type === RUN_FAILED)
    end = { close: 'Failed', reason: ended.err.message };
  else throw new UnexpectedEnd(`the run threw ${String(ended.err)}`);
  return {
    observed: observedOf(dc.case, rec, status(), { parks, settled: settlements.at(-1), ...end }),
    ms: s.now() - START,
  };
}
