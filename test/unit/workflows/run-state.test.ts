import { strict as assert } from 'node:assert';
import { WorkflowDefinitionError } from '../../../src/workflows/names';
import {
  createRunState,
  endRun,
  openCall,
  requestCancel,
  shouldStop,
  targetsOf,
  unwindOrder,
  type RunState,
} from '../../../src/workflows/run-state';

const step = (state: RunState, name: string, item?: string) =>
  openCall(state, { name, item, kind: 'step', key: `k:${name}:${item ?? ''}` });

describe("a run's state", () => {
  it('keys a call by its name and item, and refuses a step called twice', () => {
    const state = createRunState();
    state.phase = 'running';
    assert.equal(step(state, 'reserve', 'apple').id, 'reserve:apple');
    assert.equal(step(state, 'reserve', 'pear').id, 'reserve:pear');
    assert.throws(() => step(state, 'reserve', 'apple'), WorkflowDefinitionError);
    step(state, 'charge');
    assert.throws(() => step(state, 'charge'), /steps\.charge\.each/);
    // The engine's own calls are the same call when opened again (a retried settlement).
    const settle = openCall(state, { name: 'settle', kind: 'settle', key: '' });
    assert.equal(openCall(state, { name: 'settle', kind: 'settle', key: '' }), settle);
  });

  it('stops forward calls once it stops running; an undo never; the settlement of completed on a cancel', () => {
    const state = createRunState();
    state.phase = 'running';
    const charge = step(state, 'charge');
    const undo = openCall(state, { name: 'refund', kind: 'compensation', key: '' });
    const settle = openCall(state, { name: 'settle', kind: 'settle', key: '' });
    assert.equal(shouldStop(state, charge), false);
    assert.equal(endRun(state, { outcome: 'declined', cause: 'failure' }), true);
    assert.equal(state.phase, 'ending');
    assert.equal(shouldStop(state, charge), true);
    assert.equal(shouldStop(state, undo), false);
    assert.equal(requestCancel(state, 'late'), false, 'the first reason wins');
    assert.equal(state.ending?.outcome, 'declined');
    const settling = createRunState();
    settling.phase = 'settling';
    settling.settling = 'completed';
    assert.equal(requestCancel(settling, 'while settling'), true);
    assert.equal(shouldStop(settling, settle), true);
  });

  it('undoes last started first, only what may have had an effect', () => {
    const state = createRunState();
    state.phase = 'running';
    const entry = (name: string) => ({
      step: name,
      name: `undo-${name}`,
      key: name,
      activity: 'x',
      input: {},
      retry: 'own' as const,
      local: false,
      summary: '',
    });
    step(state, 'a').compensation = entry('a');
    step(state, 'b');
    step(state, 'c').compensation = entry('c');
    assert.deepEqual(
      unwindOrder(state).map((c) => c.id),
      ['c', 'a'],
    );
  });

  it('a retry acts on every stalled call; a resolve on the one it names, or the only one', () => {
    const state = createRunState();
    state.phase = 'running';
    step(state, 'a').state = 'waiting';
    step(state, 'b').state = 'parked';
    assert.deepEqual(
      targetsOf(state, 'retry', undefined).calls.map((c) => c.id),
      ['a', 'b'],
    );
    assert.match(targetsOf(state, 'resolve', undefined).refused ?? '', /name the one/);
    assert.deepEqual(
      targetsOf(state, 'resolve', 'b').calls.map((c) => c.id),
      ['b'],
    );
    assert.match(targetsOf(state, 'retry', 'c').refused ?? '', /not waiting or parked/);
  });
});
