// The emulator's workflow tasks as sdk-core and the TypeScript SDK run them: what arrives at
// once comes in one activation, in core's job order; local activities run inside their task
// (markers, heartbeats, a re-run after a restart); Temporal's cancel reaches only what is not
// shielded; a rejected update writes nothing; workflowInfo() says the history at the task.
import { strict as assert } from 'node:assert';
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  RetryState,
} from '@temporalio/common';
import type { RunInfo, SagaRuntime } from '../../../src/workflows/saga-runtime';
import { START, scriptedRuntime, activityCall } from '../../support/emulator/runtime';

const call = activityCall;
const signal = (name: string) => ({ name, type: 'signal' }) as never;

describe('the emulator: workflow tasks', () => {
  it('delivers what arrives at once in one activation, signals first and local activities last', async () => {
    const s = scriptedRuntime(() => 'ok', { idleTurns: 0, attemptMs: (c) => (c.local ? 0 : 100) });
    const seen: string[] = [];
    const closed = s.start(async (rt) => {
      rt.onSignal(signal('poke'), () => void seen.push('signal'));
      const a = rt.execute(call()).result.then(() => seen.push('activity'));
      const b = rt.execute(call({ local: true })).result.then(() => seen.push('local'));
      await rt.sleep(100).then(() => seen.push('timer'));
      await Promise.all([a, b]);
    });
    // Sent at 100 ms too, after the timer and the attempt's answer in history.
    s.at(START + 50, () => s.at(START + 100, () => s.signal('poke', {})));
    await closed;
    const at100 = s.log.filter((e) => e.jobs.some((j) => j.type === 'timer'));
    assert.equal(at100.length, 1);
    // The signal arrived last; core sorts it first, the rest in history order.
    assert.deepEqual(
      at100[0]!.jobs.map((j) => j.type),
      ['signal', 'timer', 'activity'],
    );
    // The signal's handler ran as its job applied; the others' code after all jobs applied.
    assert.deepEqual(seen.slice(0, 2), ['local', 'signal']);
    assert.deepEqual(seen.slice(2).sort(), ['activity', 'timer']);
  });

  it('writes a local activity as a marker, heartbeats its task every 8 s, runs it again after a restart', async () => {
    let attempts = 0;
    const s = scriptedRuntime(() => ++attempts, { idleTurns: 0, attemptMs: () => 20_000 });
    const closed = s.start(
      async (rt) => rt.execute(call({ local: true, timeouts: { timeout: '30 seconds' } })).result,
    );
    // A restart at 12 s: the worker dies with the local activity in flight, before its marker.
    s.at(START + 12_000, () => void s.restart());
    assert.deepEqual(await closed, { status: 'completed', result: 2 });
    assert.equal(attempts, 2, 'run again by the new worker');
    assert.equal(s.eventCount('MarkerRecorded'), 1);
    assert.equal(s.eventCount('WorkflowTaskTimedOut'), 1, 'the dead worker’s task');
    // Heartbeats at 8 s (first worker), then at 20 s and 28 s of the second's run (started at 12 s).
    assert.equal(s.eventCount('WorkflowTaskCompleted'), 4);
  });

  it('delivers the cancel of a local activity in its backoff in the same task, as a marker', async () => {
    // Attempts of 3.8 s that fail; the second ends at 7.8 s, the third is due at 8.2 s. The
    // cancel, sent at 1 s, comes in at the task's heartbeat at 8 s: the activity is backing
    // off, so the worker reports it cancelled at once (WAIT_CANCELLATION_COMPLETED waits for
    // that report) and the task goes on with it in its next activation.
    const s = scriptedRuntime(
      () => Promise.reject(ApplicationFailure.create({ type: 'Down', message: 'down' })),
      { idleTurns: 0, attemptMs: () => 3_800 },
    );
    const closed = s.start(async (rt) =>
      rt.execute(call({ local: true, timeouts: { timeout: '30 seconds' } })).result.then(
        () => 'completed',
        (err: ActivityFailure) => `${err.retryState} ${err.cause?.constructor.name}`,
      ),
    );
    s.at(START + 1_000, () => s.cancel());
    await s.idle();
    assert.deepEqual(s.status().closed, {
      status: 'completed',
      result: `${RetryState.CANCEL_REQUESTED} CancelledFailure`,
    });
    assert.equal(s.attempts.length, 2, 'no attempt after the cancel');
    assert.equal(s.eventCount('MarkerRecorded'), 1, 'the cancelled result is written');
    await closed;
  });

  it('cancels what is awaited outside `shielded` when Temporal cancels the run, and nothing inside', async () => {
    const s = scriptedRuntime(() => 'ok', { idleTurns: 0 });
    const ends: string[] = [];
    const closed = s.start(async (rt) => {
      rt.onCancelRequested(() => void ends.push('heard'));
      const outside = rt.sleep(60_000).then(
        () => 'slept',
        (err: unknown) => (err instanceof CancelledFailure ? 'cancelled' : 'other'),
      );
      const inside = rt.shielded(() => rt.sleep(60_000).then(() => 'slept'));
      ends.push(await outside, await inside);
    });
    s.at(START + 1000, () => s.cancel());
    await closed;
    assert.deepEqual(ends, ['heard', 'cancelled', 'slept']);
  });

  it('writes nothing for a rejected update, and an accepted one with its task', async () => {
    const s = scriptedRuntime(() => 'ok', { idleTurns: 0 });
    let value: unknown;
    const closed = s.start(async (rt) => {
      rt.onUpdate(
        { name: 'approve', type: 'update' } as never,
        (v: unknown) => void (value = v),
        (v: unknown) => {
          if (v !== 'yes') throw new Error('say yes');
        },
      );
      await rt.condition(() => value !== undefined);
    });
    await s.idle();
    const before = s.history();
    await assert.rejects(s.update('approve', 'no'), /say yes/);
    await s.idle();
    assert.equal(s.history(), before, 'a rejected update leaves no event');
    await s.update('approve', 'yes');
    await closed;
    assert.equal(s.eventCount('WorkflowExecutionUpdateAccepted'), 1);
    assert.equal(s.eventCount('WorkflowExecutionUpdateCompleted'), 1);
  });

  it("says the history's length and size as the task began (workflowInfo)", async () => {
    const s = scriptedRuntime(() => 'y'.repeat(100_000), { idleTurns: 0 });
    const infos: Array<RunInfo & { historySize?: number }> = [];
    await s.start(async (rt: SagaRuntime) => {
      infos.push(rt.info());
      await rt.execute(call()).result;
      infos.push(rt.info());
    });
    assert.deepEqual(
      infos.map((i) => i.historyLength),
      [3, 9],
      'start, then after its first task (2 events), the activity (3) and a new task (2)',
    );
    assert.ok(infos[1]!.historySize! - infos[0]!.historySize! > 100_000, 'the result is in it');
  });
});
