// The emulator's runs over time: a worker on changed code replays the history and is flagged
// where sdk-core flags it (command types and ids, not inputs), rolled back it goes on; a reset
// starts a new run of the chain from an earlier task; continue-as-new starts a fresh history;
// children end as their script says and a running child's ID cannot start again.
import { strict as assert } from 'node:assert';
import {
  ApplicationFailure,
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  TimeoutType,
  type ChildWorkflowFailure,
} from '@temporalio/common';
import type { SagaRuntime } from '../../../src/workflows/saga-runtime';
import {
  START,
  scriptedRuntime,
  type WorkflowMain,
  activityCall,
} from '../../support/emulator/runtime';

const call = (activity: string, input: unknown = {}) => activityCall({ activity, input });

/** Two steps and a sleep between them; `b` changes what build 2 does. */
const build =
  (b: { first?: string; input?: unknown; extra?: boolean } = {}): WorkflowMain =>
  async (rt) => {
    await rt.execute(call(b.first ?? 'one', b.input ?? { v: 1 })).result;
    await rt.sleep(60_000);
    await rt.execute(call('two')).result;
    if (b.extra) await rt.execute(call('three')).result;
    return 'done';
  };

/** Deploys `next` at 30 s (inside the sleep); returns how the run stands after. */
async function deploy(next: WorkflowMain) {
  const s = scriptedRuntime(() => 'ok', { idleTurns: 0 });
  const closed = s.start(build());
  let stuck: string | undefined;
  s.at(START + 30_000, () => void s.restart(next).then(() => (stuck = s.status().stuck)));
  await s.idle();
  return { s, closed, stuck: () => stuck };
}

describe('the emulator: runs across builds, resets and new runs', () => {
  it('flags a replay whose command differs (an activity type) and goes on once rolled back', async () => {
    const { s, closed, stuck } = await deploy(build({ first: 'uno' }));
    assert.match(
      stuck() ?? '',
      /nondeterminism: history's command 1 is ScheduleActivityTask id=1 type=one, the code issued ScheduleActivityTask id=1 type=uno/,
    );
    await s.restart(build());
    assert.deepEqual(await closed, { status: 'completed', result: 'done' });
  });

  it('passes a replay whose inputs changed, or that adds commands after the history', async () => {
    for (const change of [{ input: { v: 2 } }, { extra: true }]) {
      const { s, closed, stuck } = await deploy(build(change));
      assert.equal(stuck(), undefined, JSON.stringify(change));
      assert.equal((await closed).status, 'completed');
      if (change.extra) assert.deepEqual(s.names(), ['one', 'two', 'three']);
    }
  });

  it('resets to an earlier task: a new run, the chain kept, signals after the point applied again', async () => {
    const s = scriptedRuntime(() => 'ok', { idleTurns: 0 });
    const closed = s.start(async (rt: SagaRuntime) => {
      // Workflow state: each incarnation (the reset's too) has its own.
      const pokes: number[] = [];
      rt.onSignal({ name: 'poke', type: 'signal' } as never, (n: number) => void pokes.push(n));
      await rt.execute(call('one')).result;
      await rt.condition(() => pokes.length === 2);
      const info = rt.info();
      return {
        pokes,
        run: info.runId,
        first: info.firstExecutionRunId,
        original: info.originalExecutionRunId,
      };
    });
    s.at(START + 1000, () => s.signal('poke', 1));
    // Reset to the run's first task (before `one` and the signal), once the signal was seen.
    s.at(START + 2000, () => void s.reset(1));
    s.at(START + 3000, () => s.signal('poke', 2));
    assert.deepEqual(await closed, {
      status: 'completed',
      result: { pokes: [1, 2], run: 'run-2', first: 'run-1', original: 'run-1' },
    });
    assert.deepEqual(s.names(), ['one', 'one'], 'the reset ran `one` again (same intent)');
  });

  it('continues as new: the same workflow, a new run with the given input and a fresh history', async () => {
    const s = scriptedRuntime(() => 'ok', { idleTurns: 0, workflowId: 'loop-1' });
    const closed = s.start(
      async (
        rt: SagaRuntime & { continueAsNew?(input: unknown): Promise<never> },
        input: unknown,
      ) => {
        const round = (input as { round?: number } | undefined)?.round ?? 0;
        for (let i = 0; i < 100; i++) await rt.sleep(1000);
        if (round < 2) return rt.continueAsNew!({ round: round + 1 });
        const info = rt.info();
        return { round, ...info, startTime: undefined, runStartTime: undefined };
      },
    );
    const end = await closed;
    assert.equal(end.status, 'completed');
    assert.deepEqual((end as { result: object }).result, {
      round: 2,
      workflowId: 'loop-1',
      runId: 'run-3',
      firstExecutionRunId: 'run-1',
      originalExecutionRunId: 'run-3',
      historyLength: 503,
      historySize: (end as { result: { historySize: number } }).result.historySize,
      continueAsNewSuggested: false,
      startTime: undefined,
      runStartTime: undefined,
    });
    assert.equal(s.history(), 505, 'the last run holds its own 100 sleeps only');
  });

  it('ends children as their script says, and refuses a child ID that is still running', async () => {
    const ends: Record<string, unknown> = {
      ok: 'fine',
      failed: ApplicationFailure.create({ type: 'KidFailed', message: 'failed' }),
      terminated: new TerminatedFailure('terminated'),
      timedOut: new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE),
      canceled: new CancelledFailure('cancelled'),
    };
    const s = scriptedRuntime(() => 'ok', {
      idleTurns: 0,
      child: (c) => {
        const end = ends[c.workflowId.replace(/-again$/, '')];
        if (end instanceof Error) throw end;
        return end;
      },
      childScript: () => ({ ms: 5000 }),
    });
    const child = (rt: SagaRuntime, id: string) =>
      rt.executeChild({ workflowType: 'kid', workflowId: id, input: {}, summary: id }).result.then(
        (v) => v,
        (err: ChildWorkflowFailure) => err.cause?.constructor.name ?? err.constructor.name,
      );
    const closed = await s.start(async (rt) => {
      const got = await Promise.all(Object.keys(ends).map((id) => child(rt, id)));
      const first = rt.executeChild({
        workflowType: 'kid',
        workflowId: 'ok',
        input: {},
        summary: 's',
      });
      const twice = await child(rt, 'ok');
      await first.result;
      return [...got, twice];
    });
    assert.deepEqual((closed as { result: unknown }).result, [
      'fine',
      'ApplicationFailure',
      'TerminatedFailure',
      'TimeoutFailure',
      'CancelledFailure',
      'WorkflowExecutionAlreadyStartedError',
    ]);
    assert.equal(s.eventCount('ChildWorkflowExecutionStarted'), 6);
  });

  it("cancels a child by its cancellation type: the default waits for the child's end", async () => {
    const ends: string[] = [];
    const s = scriptedRuntime(() => 'ok', {
      idleTurns: 0,
      // The child ignores the cancel and runs its 10 s.
      childScript: () => ({ ms: 10_000, ignoresCancel: true }),
    });
    await s.start(async (rt) => {
      const kid = (type?: string) => {
        const c = rt.executeChild({
          workflowType: 'kid',
          workflowId: `k-${type}`,
          input: {},
          summary: 'k',
          ...(type ? { cancellationType: type } : {}),
        } as never);
        return {
          c,
          ended: c.result
            .then(
              () => `${type ?? 'default'} completed`,
              () => `${type ?? 'default'} cancelled`,
            )
            .then((e) => void ends.push(`${e} at ${s.now() - START}`)),
        };
      };
      const kids = [kid(), kid('WAIT_CANCELLATION_REQUESTED'), kid('TRY_CANCEL')];
      await rt.sleep(1000);
      kids.forEach((k) => k.c.cancel());
      await Promise.all(kids.map((k) => k.ended));
    });
    assert.deepEqual(ends, [
      'TRY_CANCEL cancelled at 1000',
      'WAIT_CANCELLATION_REQUESTED cancelled at 1000',
      'default completed at 10000',
    ]);
  });
});
