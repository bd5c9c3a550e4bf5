// Finding (review of d482618): the history budget counted events only. Temporal also terminates a
// run whose history passes 50 MB (limit.historySize.error), and every ActivityTaskScheduled
// records the call's input (again for the waiting round and for every operator retry) and every
// ActivityTaskCompleted its result. Nothing bounded the bytes: a loop over items whose calls carry
// a few tens of KB each passed 50 MB well inside the event budget, never parking. It parks now.
import { strict as assert } from 'node:assert';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { inputOf, scriptedRuntime } from '../../support/emulator/runtime';

type Acts = {
  label(i: { key: string; doc: string }): Promise<{ pdf: string }>;
  void(i: { key: string }): Promise<void>;
};

const HISTORY_SIZE_LIMIT = 50 * 1024 * 1024;
const ITEMS = 600;
const KB = 45 * 1024;

const wf = defineWorkflow<{ id: string }, Acts>()({
  name: 'labels',
  domain: 'labels',
  entity: { kind: 'lbl', id: (d) => d.id },
  steps: {
    label: {
      activity: 'label',
      retry: 'foreign',
      compensate: { name: 'void', activity: 'void', retry: 'foreign', input: () => ({}) },
    },
  },
  async run({ steps }) {
    for (let i = 0; i < ITEMS; i++) await steps.label.each(`parcel-${i}`, { doc: 'x'.repeat(KB) });
  },
});

describe('history bytes', () => {
  it('a run stays under the 50 MB history size, or parks before it', async function () {
    this.timeout(120_000);
    let resultBytes = 0;
    const s = scriptedRuntime(
      (call) => {
        if (call.activity === 'claimEntity') return { kind: 'owner', claim: {} };
        if (call.activity === 'label') {
          const r = { pdf: 'y'.repeat(KB) };
          resultBytes += JSON.stringify(r).length;
          return r;
        }
        return {};
      },
      { idleTurns: 0 },
    );
    const running = runWorkflow(wf.definition as never, inputOf({ id: 'l-1' }), s.runtime);
    await s.idle();
    const inputBytes = s.calls.reduce((n, c) => n + JSON.stringify(c.input ?? null).length, 0);
    const total = inputBytes + resultBytes;
    assert.match(
      s.query<SagaStatus>(statusQuery.name).parked?.error ?? 'not parked',
      /^history-budget: /,
      'the labels park before the history is full',
    );
    assert.ok(
      total < HISTORY_SIZE_LIMIT,
      `${(total / 1048576).toFixed(1)} MiB of payloads in a ${s.history()}-event history: Temporal terminates it past 50 MB, nothing parked it`,
    );
    // Cancelled, every label made is voided, and the history still fits.
    s.signal('cancel', { reason: 'end', by: 'test' });
    assert.equal((await running).outcome, 'cancelled');
    const labels = s.calls.filter((c) => c.activity === 'label').length;
    const voids = s.calls.filter((c) => c.activity === 'void').length;
    assert.equal(voids, labels, 'each label made is voided once');
    assert.ok(s.historyBytes() < HISTORY_SIZE_LIMIT, `${s.historyBytes()} bytes of history`);
  });
});
