import { strict as assert } from 'node:assert';
import { payouts } from '../../../src/domains/payouts';
import { buildSelectionQuery, parseSelection } from '../../../src/ops/bulk-selection';
import { buildRunQuery } from '../../../src/ops/order-lookup';
import { opsDomainOf } from '../../../src/ops/ops-domain';
import { UsageError } from '../../../src/ops/output';
import { buildPauseQuery, parsePauseArgs } from '../../../src/ops/pause-selection';
import { classifySignal, type TimelineEntry } from '../../../src/ops/signal-outcomes';

const PAYOUTS = opsDomainOf(payouts);

describe('ops CLI arguments of a domain other than orders', () => {
  const now = Date.parse('2026-11-24T12:00:00.000Z');

  it('list and the bulk selection query the domain’s workflow type', () => {
    assert.equal(
      buildRunQuery(PAYOUTS.workflowType, { step: 'needs_attention', entityIdPrefix: 'po-' }),
      "WorkflowType = 'payout' AND EntityId STARTS_WITH 'po-' AND Step = 'needs_attention'",
    );
    const sel = parseSelection({ prefix: 'po-', 'parked-at': 'notify' }, now, null);
    assert.equal(sel.parkedAt, 'notify');
    assert.equal(
      buildSelectionQuery(sel, PAYOUTS.workflowType),
      "WorkflowType = 'payout' AND EntityId STARTS_WITH 'po-' AND Step = 'needs_attention' AND ExecutionStatus = 'Running'",
    );
  });

  it('--parked-at takes a domain’s own step names, orders’ only theirs', () => {
    assert.throws(
      () => parseSelection({ 'parked-at': 'notify' }, now),
      /--parked-at must be one of reserve, charge, email, refund, release, got notify/,
    );
    assert.throws(() => parseSelection({ 'parked-at': '' }, now, null), UsageError);
  });

  it('pause|resume take --activity NAME or --all; --step is the orders’ option', () => {
    const { selection } = parsePauseArgs(['--activity', 'transferFunds'], 'pause', PAYOUTS);
    assert.deepEqual(selection, { workflowType: 'payout', activityType: 'transferFunds' });
    const query = buildPauseQuery(selection);
    assert.match(query, /^WorkflowType = 'payout' AND ExecutionStatus = 'Running'/);
    assert.doesNotMatch(query, /reserving|charging/);
    const all = parsePauseArgs(['--all', '--prefix', 'po-'], 'resume', PAYOUTS).selection;
    assert.deepEqual(all, { workflowType: 'payout', prefix: 'po-' });
    assert.throws(
      () => parsePauseArgs(['--step', 'charge'], 'pause', PAYOUTS),
      /payouts pause\|resume take --activity NAME/,
    );
    assert.throws(
      () => parsePauseArgs([], 'pause', PAYOUTS),
      /exactly one of --activity NAME or --all/,
    );
    assert.throws(
      () => parsePauseArgs(['--activity', 'x', '--all'], 'pause', PAYOUTS),
      /exactly one of --activity NAME or --all/,
    );
    assert.throws(
      () => parsePauseArgs(['--activity', 'chargePayment'], 'pause'),
      /orders name a step: --step reserve\|charge/,
    );
    assert.equal(parsePauseArgs(['--step', 'charge'], 'pause').selection.step, 'charge');
  });

  it('a bulk cancel counts with the domain’s cancel signal', () => {
    const me = 'onceflow-cli cancel ana 2026-11-24T12:00:00.000Z';
    const t = (entries: TimelineEntry[]) => entries;
    const second = t([
      { kind: 'step', step: 'needs_attention' },
      { kind: 'signal', name: 'cancel', identity: 'a cancellation workflow' },
      { kind: 'signal', name: 'cancel', identity: me },
    ]);
    assert.equal(classifySignal(second, 'cancel', me, PAYOUTS.cancelSignal), 'skipped');
    const first = t([
      { kind: 'step', step: 'needs_attention' },
      { kind: 'signal', name: 'cancel', identity: me },
    ]);
    assert.equal(classifySignal(first, 'cancel', me, PAYOUTS.cancelSignal), 'signalled');
    // A retry after the payout's cancel signal arrived in the same parked wait does nothing.
    const retry = t([
      { kind: 'step', step: 'needs_attention' },
      { kind: 'signal', name: 'cancel', identity: 'someone' },
      { kind: 'signal', name: 'retryStep', identity: me },
    ]);
    assert.equal(classifySignal(retry, 'retryStep', me, PAYOUTS.cancelSignal), 'skipped');
  });
});
