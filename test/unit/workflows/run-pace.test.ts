import { strict as assert } from 'node:assert';
import { MAX_CALLS_IN_FLIGHT, MAX_TASK_PAYLOAD_BYTES } from '../../../src/workflows/run-budget';
import { createPace } from '../../../src/workflows/run-pace';
import type { SagaRuntime } from '../../../src/workflows/saga-runtime';
import { turns } from '../../support/emulator/runtime';

/**
 * Workflow tasks as Temporal runs them, reduced to what pacing reads: a history length that
 * changes only between tasks, conditions re-checked at each task, timers that end one.
 */
function tasks() {
  let length = 3;
  const conditions: Array<{ until: () => boolean; done: (v: boolean) => void }> = [];
  const timers: Array<() => void> = [];
  let timersStarted = 0;
  /** As the SDK does at the end of an activation: until no condition comes true any more. */
  const settle = async () => {
    for (let any = true; any;) {
      await turns(2);
      any = false;
      for (const c of [...conditions])
        if (c.until()) {
          conditions.splice(conditions.indexOf(c), 1);
          c.done(true);
          any = true;
        }
    }
  };
  const runtime = {
    info: () => ({ historyLength: length }),
    condition: (until: () => boolean) =>
      new Promise<boolean>((done) => (until() ? done(true) : conditions.push({ until, done }))),
    sleep: () => {
      timersStarted++;
      return new Promise<void>((done) => timers.push(done));
    },
  } as unknown as SagaRuntime;
  return {
    runtime,
    timersStarted: () => timersStarted,
    /** The next workflow task: due timers fire, conditions are checked again. */
    async next() {
      length += 5;
      for (const fire of timers.splice(0)) fire();
      await settle();
    },
  };
}

describe("a run's pace: no workflow task past Temporal's limits, however wide the fan-out", () => {
  it('schedules at most MAX_TASK_PAYLOAD_BYTES of inputs per task, one timer per boundary', async () => {
    const t = tasks();
    const pace = createPace(t.runtime);
    const scheduled: number[][] = [[]];
    const bytes = 300 * 1024;
    const count = 40;
    for (let i = 0; i < count; i++)
      void pace
        .admit(bytes, () => false)
        .then((release) => {
          scheduled.at(-1)!.push(i);
          release!();
        });
    await turns(5);
    for (let task = 0; scheduled.flat().length < count && task < 100; task++) {
      scheduled.push([]);
      await t.next();
    }
    const perTask = Math.floor(MAX_TASK_PAYLOAD_BYTES / bytes);
    assert.deepEqual(
      scheduled.filter((s) => s.length > 0).map((s) => s.length),
      [...Array(Math.floor(count / perTask)).fill(perTask), count % perTask].filter((n) => n > 0),
    );
    assert.deepEqual(scheduled.flat(), [...Array(count).keys()], 'first come, first served');
    assert.equal(t.timersStarted(), Math.ceil(count / perTask) - 1);
  });

  it('keeps at most MAX_CALLS_IN_FLIGHT in flight; a stopped call is never scheduled', async () => {
    const t = tasks();
    const pace = createPace(t.runtime);
    const releases: Array<() => void> = [];
    let stop = false;
    const outcomes: Array<'admitted' | 'stopped'> = [];
    for (let i = 0; i < MAX_CALLS_IN_FLIGHT + 10; i++)
      void pace
        .admit(10, () => stop && i >= MAX_CALLS_IN_FLIGHT + 5)
        .then((r) => {
          outcomes.push(r ? 'admitted' : 'stopped');
          if (r) releases.push(r);
        });
    await turns(5);
    assert.equal(releases.length, MAX_CALLS_IN_FLIGHT);
    // Five calls end; the next five get their slots, the last five are stopped first.
    for (const r of releases.splice(0, 5)) r();
    stop = true;
    await t.next();
    assert.equal(outcomes.filter((o) => o === 'admitted').length, MAX_CALLS_IN_FLIGHT + 5);
    assert.equal(outcomes.filter((o) => o === 'stopped').length, 5);
  });
});
