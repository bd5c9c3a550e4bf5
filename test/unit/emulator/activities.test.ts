// The emulator's activities as the server and the SDK run them: a cancel's outcome by
// cancellation type, a command cancelled in its own task never sent, attempt timeouts.
import { strict as assert } from 'node:assert';
import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import type { ActivityCall, SagaRuntime } from '../../../src/workflows/saga-runtime';
import {
  outage,
  scriptedRuntime,
  type EmulatorOptions,
  activityCall,
} from '../../support/emulator/runtime';

const call = activityCall;

/** What the call's result was: its value, or its failure's retry state and cause. */
const outcomeOf = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (err: ActivityFailure) => ({
      state: err.retryState,
      cause: err.cause?.constructor.name,
      timeout: (err.cause as TimeoutFailure | undefined)?.timeoutType,
    }),
  );

async function run(
  main: (rt: SagaRuntime) => Promise<unknown>,
  answer: (c: ActivityCall) => unknown,
  options: EmulatorOptions = {},
) {
  const s = scriptedRuntime(answer, { idleTurns: 0, ...options });
  const closed = await s.start((rt) => main(rt));
  assert.equal(closed.status, 'completed', JSON.stringify(closed));
  return { s, result: (closed as { result: unknown }).result };
}

/** Starts the call, cancels it after `afterMs`, returns how it ended. */
const cancelledAfter =
  (afterMs: number, c = call()) =>
  async (rt: SagaRuntime) => {
    const f = rt.execute(c);
    await rt.sleep(afterMs);
    f.cancel();
    return outcomeOf(f.result);
  };

describe('the emulator: activities', () => {
  it('reports an attempt that fails after a cancel as its own failure (WAIT_CANCELLATION_COMPLETED)', async () => {
    const { s, result } = await run(cancelledAfter(10), () => Promise.reject(outage()), {
      attemptMs: () => 1000,
    });
    assert.deepEqual(result, {
      state: RetryState.CANCEL_REQUESTED,
      cause: 'ApplicationFailure',
      timeout: undefined,
    });
    assert.equal(s.eventCount('ActivityTaskCancelRequested'), 1);
    assert.equal(s.eventCount('ActivityTaskFailed'), 1);
  });

  it('gives the result of an attempt that completes after a cancel', async () => {
    const { result } = await run(cancelledAfter(10), () => 'done', { attemptMs: () => 1000 });
    assert.deepEqual(result, { value: 'done' });
  });

  it('cancels at once (ActivityTaskCanceled) an activity with no attempt in flight', async () => {
    // The first attempt fails at once; the cancel lands during the 200 ms backoff.
    const { s, result } = await run(cancelledAfter(100), () => Promise.reject(outage()));
    assert.deepEqual(result, {
      state: RetryState.CANCEL_REQUESTED,
      cause: 'CancelledFailure',
      timeout: undefined,
    });
    assert.equal(s.eventCount('ActivityTaskCanceled'), 1);
    assert.equal(s.attempts.length, 1, 'no attempt after the cancel');
  });

  it('TRY_CANCEL rejects at once; ABANDON sends no cancel at all', async () => {
    for (const type of ['TRY_CANCEL', 'ABANDON']) {
      const c = { ...call(), cancellationType: type } as ActivityCall;
      const { s, result } = await run(cancelledAfter(10, c), () => 'late', {
        attemptMs: () => 1000,
      });
      assert.equal((result as { cause?: string }).cause, 'CancelledFailure', type);
      assert.equal(s.eventCount('ActivityTaskCancelRequested'), type === 'ABANDON' ? 0 : 1, type);
    }
  });

  it('drops an activity cancelled in the task that scheduled it: nothing reaches history or the provider', async () => {
    const { s, result } = await run(
      async (rt) => {
        const f = rt.execute(call());
        f.cancel();
        return outcomeOf(f.result);
      },
      () => 'never',
    );
    assert.equal((result as { cause?: string }).cause, 'CancelledFailure');
    assert.equal(s.eventCount('ActivityTaskScheduled'), 0);
    assert.equal(s.attempts.length, 0);
  });

  it('times out an attempt past its start-to-close timeout, retries it, and gives up after its attempts', async () => {
    let effects = 0;
    const { result } = await run(
      async (rt) => outcomeOf(rt.execute(call()).result),
      () => ++effects,
      {
        attemptMs: () => 20_000,
      },
    );
    assert.deepEqual(result, {
      state: RetryState.MAXIMUM_ATTEMPTS_REACHED,
      cause: 'TimeoutFailure',
      timeout: TimeoutType.START_TO_CLOSE,
    });
    assert.equal(effects, 5, "each of the own class's 5 attempts acted (their answers were lost)");
  });

  it("times out an attempt that never heartbeats past the step's heartbeat timeout", async () => {
    const c = call({ timeouts: { heartbeat: '2 seconds' } });
    const { result } = await run(
      async (rt) => outcomeOf(rt.execute(c).result),
      () => 'x',
      {
        attemptMs: () => 5000,
      },
    );
    assert.equal((result as { timeout?: string }).timeout, TimeoutType.HEARTBEAT);
  });

  it("ends a waiting round at its schedule-to-close deadline with the last attempt's failure", async () => {
    const c = call({ round: { leftMs: 5_000, intervalMs: 1_000 } });
    const { s, result } = await run(
      async (rt) => outcomeOf(rt.execute(c).result),
      () => Promise.reject(ApplicationFailure.create({ type: 'Down', message: 'down' })),
    );
    assert.deepEqual(result, {
      state: RetryState.TIMEOUT,
      cause: 'ApplicationFailure',
      timeout: undefined,
    });
    assert.equal(s.attempts.length, 6, 'every second from 0 s to the deadline at 5 s');
    assert.ok(s.now() - s.attempts[0]!.at <= 5_000);
  });
});
