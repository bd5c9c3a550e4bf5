// The emulator's limits where Temporal has them (test/support/emulator/limits.ts): each run
// here stays just under a limit and passes, or goes just past it and ends as the server ends
// it. Workflow code is plain SagaRuntime calls, so every event is known.
import { strict as assert } from 'node:assert';
import type { ActivityCall, SagaRuntime } from '../../../src/workflows/saga-runtime';
import {
  LIMITS,
  PAYLOAD_OVERHEAD,
  START,
  scriptedRuntime,
  type Closed,
  type EmulatorOptions,
  activityCall,
} from '../../support/emulator/runtime';

const call = (input: unknown, activity = 'act') => activityCall({ activity, input });

/** Runs `main` to its end (or its task failing for ever); answers every activity with `answer`. */
async function run(
  main: (rt: SagaRuntime) => Promise<unknown>,
  answer: (c: ActivityCall) => unknown = () => 'ok',
  options: EmulatorOptions = {},
) {
  const s = scriptedRuntime(answer, { idleTurns: 0, ...options });
  let closed: Closed | undefined;
  void s.start((rt) => main(rt)).then((c) => (closed = c));
  await s.idle();
  return { s, closed, stuck: s.status().stuck };
}

const sleeps = (n: number) => async (rt: SagaRuntime) => {
  for (let i = 0; i < n; i++) await rt.sleep(1000);
};

describe('the emulator: Temporal’s limits', () => {
  it('counts a sleep as the dev server does: 10 sleeps are 55 events (5 each, 5 to start and end)', async () => {
    const { s, closed } = await run(sleeps(10));
    assert.equal(closed?.status, 'completed');
    assert.equal(s.history(), 55);
  });

  it(`terminates a run at the first transaction after its history passed ${LIMITS.historyEvents} events`, async function () {
    this.timeout(60_000);
    // 5n + 5 events: 10,238 sleeps end at 51,195, under the limit; 10,240 pass it.
    const under = await run(sleeps(10_238));
    assert.equal(under.closed?.status, 'completed');
    assert.equal(under.s.history(), 51_195);
    const over = await run(sleeps(10_240));
    assert.equal(over.closed?.status, 'terminated');
    assert.match(
      (over.closed as { reason: string }).reason,
      /history count exceeds limit: 51201 events/,
    );
    // The transaction that found 51,201 events wrote only the termination.
    assert.equal(over.s.history(), 51_202);
  });

  it('terminates a run whose history passed 50 MB, at its next transaction', async function () {
    this.timeout(60_000);
    const mb = 'y'.repeat(1_000_000);
    const { s, closed } = await run(
      async (rt) => {
        for (let i = 0; i < 60; i++) await rt.execute(call({ i })).result;
      },
      () => mb,
    );
    assert.equal(closed?.status, 'terminated');
    assert.match((closed as { reason: string }).reason, /history size exceeds limit/);
    assert.ok(s.historyBytes() > LIMITS.historyBytes);
    // A call writes about 1,001,196 bytes (its three events, a task's three): 52 calls stay
    // under 52,428,800; the 53rd's result passes it, and the next task is the termination.
    assert.equal(s.eventCount('ActivityTaskCompleted'), 53);
    assert.equal(s.eventCount('ActivityTaskScheduled'), 53);
  });

  it('fails the task for ever on a payload over 2 MB (exactly 2 MB passes)', async () => {
    const pad = (n: number) => ({ p: 'x'.repeat(n - PAYLOAD_OVERHEAD - 8) }); // {"p":"…"} is 8 bytes
    const fits = await run(async (rt) => rt.execute(call(pad(LIMITS.blobBytes))).result);
    assert.equal(fits.closed?.status, 'completed');
    const over = await run(async (rt) => rt.execute(call(pad(LIMITS.blobBytes + 1))).result);
    assert.equal(over.closed, undefined, 'never closes');
    assert.match(
      over.stuck ?? '',
      /PayloadsTooLarge: a activity command's payload is 2097153 bytes/,
    );
    assert.equal(over.s.eventCount('WorkflowTaskFailed'), 1, 'the first failure only is written');
  });

  it('terminates a run whose task completion passes the 4 MB gRPC message limit', async () => {
    const big = { p: 'x'.repeat(1_400_000) };
    const two = await run(async (rt) =>
      Promise.all([1, 2].map(() => rt.execute(call(big)).result)),
    );
    assert.equal(two.closed?.status, 'completed');
    const three = await run(async (rt) =>
      Promise.all([1, 2, 3].map(() => rt.execute(call(big)).result)),
    );
    assert.equal(three.closed?.status, 'terminated');
    assert.match((three.closed as { reason: string }).reason, /GrpcMessageTooLarge/);
  });

  for (const [what, start, pattern] of [
    [
      'activities',
      (rt: SagaRuntime, i: number) => rt.execute(call({ i })).result,
      /PENDING_ACTIVITIES_LIMIT_EXCEEDED/,
    ],
    [
      'children',
      (rt: SagaRuntime, i: number) =>
        rt.executeChild({ workflowType: 'kid', workflowId: `k-${i}`, input: {}, summary: 'k' })
          .result,
      /PENDING_CHILD_WORKFLOWS_LIMIT_EXCEEDED/,
    ],
    [
      'external signals',
      (rt: SagaRuntime, i: number) =>
        rt.signal(`w-${i}`, { name: 'cancel', type: 'signal' } as never, { reason: 'r' }),
      /PENDING_SIGNALS_LIMIT_EXCEEDED/,
    ],
  ] as const)
    it(`fails the task for ever with more than 2,000 pending ${what} (2,000 pass)`, async function () {
      this.timeout(60_000);
      const at = (n: number) =>
        run(async (rt) => Promise.all(Array.from({ length: n }, (_, i) => start(rt, i))));
      assert.equal((await at(2_000)).closed?.status, 'completed');
      const over = await at(2_001);
      assert.match(over.stuck ?? '', pattern);
    });

  it('fails a task with FORCE_CLOSE_COMMAND when more than 100 events arrive during it; the retry goes through', async () => {
    const go = async (signals: number) => {
      const s = scriptedRuntime(() => 'ok', { idleTurns: 0, taskLatency: () => 50 });
      let seen = 0;
      const closed = s.start(async (rt) => {
        rt.onSignal({ name: 'poke', type: 'signal' } as never, () => void seen++);
        await rt.condition(() => seen === signals);
        return seen;
      });
      s.at(START + 10, () => {
        for (let i = 0; i < signals; i++) s.signal('poke', {});
      });
      return { s, closed: await closed };
    };
    const fits = await go(100);
    assert.equal(fits.s.eventCount('WorkflowTaskFailed'), 0);
    const over = await go(101);
    assert.equal(over.s.eventCount('WorkflowTaskFailed'), 1, 'failed once, FORCE_CLOSE_COMMAND');
    assert.deepEqual(over.closed, { status: 'completed', result: 101 });
  });
});
