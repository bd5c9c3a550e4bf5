import { strict as assert } from 'node:assert';
import {
  buildSelectionQuery,
  parkedStepFromMemo,
  parseSelection,
} from '../../../src/ops/bulk-selection';
import { UsageError } from '../../../src/ops/output';
import { buildPauseQuery } from '../../../src/ops/pause-selection';
import { batchReasonOf, operatorActionOf } from '../../../src/ops/operator-action';

describe('bulk selection: options to visibility query', () => {
  const now = Date.parse('2026-11-23T12:00:00.000Z');

  it('defaults to running parked orders', () => {
    assert.equal(
      buildSelectionQuery(parseSelection({}, now)),
      "WorkflowType = 'orderFulfillment' AND Step = 'needs_attention' AND ExecutionStatus = 'Running'",
    );
  });

  it('adds the prefix, another step and the start-time bound', () => {
    const sel = parseSelection({ step: 'waiting', 'older-than': '10m', prefix: 'ord-7' }, now);
    assert.equal(
      buildSelectionQuery(sel),
      "WorkflowType = 'orderFulfillment' AND EntityId STARTS_WITH 'ord-7' AND Step = 'waiting'" +
        " AND ExecutionStatus = 'Running' AND StartTime < '2026-11-23T11:50:00.000Z'",
    );
  });

  it('keeps --parked-at out of the query (the memo is not queryable)', () => {
    const sel = parseSelection({ 'parked-at': 'charge' }, now);
    assert.equal(sel.parkedAt, 'charge');
    assert.doesNotMatch(buildSelectionQuery(sel), /charge/);
  });

  it('refuses malformed selections', () => {
    assert.throws(() => parseSelection({ 'parked-at': 'ship' }), UsageError);
    assert.throws(() => parseSelection({ 'parked-at': 'charge', step: 'waiting' }), UsageError);
    assert.throws(() => parseSelection({ prefix: "o'" }), UsageError);
    assert.throws(() => parseSelection({ prefix: 'o\\' }), UsageError);
    assert.throws(() => parseSelection({ prefix: '' }), UsageError);
    assert.throws(() => parseSelection({ 'older-than': '10' }), UsageError);
  });

  it('reads the parked step from the attention memo only when parked', () => {
    assert.equal(parkedStepFromMemo({ attention: { state: 'parked', step: 'charge' } }), 'charge');
    assert.equal(
      parkedStepFromMemo({ attention: { state: 'waiting', step: 'charge' } }),
      undefined,
    );
    assert.equal(parkedStepFromMemo({ attention: { state: 'parked', step: 3 } }), undefined);
    assert.equal(parkedStepFromMemo({}), undefined);
    assert.equal(parkedStepFromMemo(undefined), undefined);
  });

  it('pause selects the step running (no Step written) or waiting; --all every step and waiting', () => {
    assert.equal(
      buildPauseQuery({ step: 'charge', prefix: 'p-' }),
      "WorkflowType = 'orderFulfillment' AND ExecutionStatus = 'Running' AND (Step IN ('charging', 'waiting') OR Step IS NULL) AND EntityId STARTS_WITH 'p-'",
    );
    assert.equal(
      buildPauseQuery({}),
      "WorkflowType = 'orderFulfillment' AND ExecutionStatus = 'Running' AND (Step IN ('reserving', 'charging', 'emailing', 'announce', 'compensating', 'waiting') OR Step IS NULL)",
    );
  });
});

describe('operator action: who, when, why', () => {
  const at = new Date('2026-11-23T12:00:00.000Z');

  it('takes --by and --reason, stamps the time', () => {
    assert.deepEqual(operatorActionOf({ by: 'alice', reason: 'PSP back' }, at), {
      by: 'alice',
      reason: 'PSP back',
      at: '2026-11-23T12:00:00.000Z',
    });
  });

  it('defaults to the OS user and leaves an empty reason out', () => {
    const action = operatorActionOf({ reason: '  ' }, at);
    assert.ok(action.by.length > 0);
    assert.equal('reason' in action, false);
    assert.throws(() => operatorActionOf({ by: ' ' }), UsageError);
  });

  it('puts the same facts in the batch reason', () => {
    assert.equal(
      batchReasonOf('retry', { by: 'alice', reason: 'PSP back', at: at.toISOString() }),
      'retry by alice: PSP back (onceflow CLI)',
    );
    assert.equal(batchReasonOf('cancel', { by: 'bob' }), 'cancel by bob (onceflow CLI)');
  });
});
