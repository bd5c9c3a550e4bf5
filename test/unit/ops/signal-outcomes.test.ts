import { strict as assert } from 'node:assert';
import { summaryLine } from '../../../src/ops/bulk-commands';
import { classifySignal, timelineOf, type TimelineEntry } from '../../../src/ops/signal-outcomes';

const ME = 'onceflow-cli retry alice 2026-11-23T12:00:00.000Z';
const step = (s: string): TimelineEntry => ({ kind: 'step', step: s });
const signal = (name: string, identity = 'someone else'): TimelineEntry => ({
  kind: 'signal',
  name,
  identity,
});

describe('signal outcomes: did the batch signal change anything?', () => {
  it('a retry that finds the order parked is signalled', () => {
    const t = [
      step('reserving'),
      step('charging'),
      step('needs_attention'),
      signal('retryStep', ME),
    ];
    assert.equal(classifySignal(t, 'retryStep', ME), 'signalled');
  });

  it('a retry that finds the order waiting on a transient cause is signalled', () => {
    const t = [step('charging'), step('waiting'), signal('retryStep', ME)];
    assert.equal(classifySignal(t, 'retryStep', ME), 'signalled');
  });

  it('a retry that arrives after the order moved on is skipped', () => {
    const t = [step('needs_attention'), step('charging'), signal('retryStep', ME)];
    assert.equal(classifySignal(t, 'retryStep', ME), 'skipped');
  });

  it('a retry after another operator signal in the same parked wait is skipped', () => {
    const t = [step('needs_attention'), signal('resolveStep'), signal('retryStep', ME)];
    assert.equal(classifySignal(t, 'retryStep', ME), 'skipped');
  });

  it('a retry after an earlier wait was ended counts the new wait', () => {
    const t = [
      step('needs_attention'),
      signal('retryStep'),
      step('charging'),
      step('needs_attention'),
      signal('retryStep', ME),
    ];
    assert.equal(classifySignal(t, 'retryStep', ME), 'signalled');
  });

  it('a signal that never reached the run failed', () => {
    assert.equal(classifySignal([step('needs_attention')], 'retryStep', ME), 'failed');
    assert.equal(classifySignal([signal('retryStep')], 'retryStep', ME), 'failed');
  });

  it('a cancellation acts once: skipped when one arrived before', () => {
    assert.equal(
      classifySignal([step('charging'), signal('cancelOrder', ME)], 'cancelOrder', ME),
      'signalled',
    );
    assert.equal(
      classifySignal(
        [signal('cancelOrder'), step('compensating'), signal('cancelOrder', ME)],
        'cancelOrder',
        ME,
      ),
      'skipped',
    );
  });

  it('reads Step upserts and signals from history events', () => {
    const keyword = (v: string) => ({
      metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('Keyword') },
      data: Buffer.from(JSON.stringify(v)),
    });
    const t = timelineOf([
      {
        workflowExecutionStartedEventAttributes: {
          searchAttributes: { indexedFields: { EntityId: keyword('o1') } },
        },
      },
      {
        upsertWorkflowSearchAttributesEventAttributes: {
          searchAttributes: { indexedFields: { Step: keyword('waiting') } },
        },
      },
      { workflowExecutionSignaledEventAttributes: { signalName: 'retryStep', identity: ME } },
    ]);
    assert.deepEqual(t, [step('waiting'), signal('retryStep', ME)]);
  });

  it('reads OrderStep upserts of histories recorded before the generic attributes', () => {
    const keyword = (v: string) => ({
      metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('Keyword') },
      data: Buffer.from(JSON.stringify(v)),
    });
    const t = timelineOf([
      {
        workflowExecutionStartedEventAttributes: {
          searchAttributes: { indexedFields: { OrderId: keyword('o1') } },
        },
      },
      {
        upsertWorkflowSearchAttributesEventAttributes: {
          searchAttributes: { indexedFields: { OrderStep: keyword('needs_attention') } },
        },
      },
      { workflowExecutionSignaledEventAttributes: { signalName: 'retryStep', identity: ME } },
    ]);
    assert.deepEqual(t, [step('needs_attention'), signal('retryStep', ME)]);
  });

  it('the final line names all three counts', () => {
    assert.equal(
      summaryLine('retry', { selected: 60, signalled: 57, skipped: 3, failed: 0 }, [
        'onceflow-retry-x',
      ]),
      'retry: 57 signalled, 3 skipped (no longer parked or waiting), 0 failed of 60 selected · batch onceflow-retry-x',
    );
  });
});
