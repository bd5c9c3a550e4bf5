import { strict as assert } from 'node:assert';
import {
  attentionFromMemo,
  attentionLine,
  attentionOf,
  plainOfMarkdown,
} from '../../../src/ops/order-attention';
import { shellCommand } from '../../../src/util/shell-quote';
import {
  parkedActionOf,
  waitingActionOf,
} from '../../../src/domains/orders/workflows/order-details';
import {
  stepKeys,
  type OrderStatus,
} from '../../../src/domains/orders/workflows/order-definitions';

function statusOf(orderId: string, over: Partial<OrderStatus> = {}): OrderStatus {
  return { orderId, step: 'waiting', recoveryPoints: [], keys: stepKeys(orderId), ...over };
}

const WAITING_MEMO = {
  attention: {
    state: 'waiting',
    step: 'charge',
    cause: 'TransientProviderError: connect ECONNREFUSED 127.0.0.1:4010',
    since: '2026-11-24T10:41:02.000Z',
    attempt: 14,
    nextTryAt: '2026-11-24T10:45:32.000Z',
    action: waitingActionOf(statusOf('order-1'), 'charge', '2026-11-24T11:41:02.000Z'),
  },
};

/** `orders show` with no worker: the memo `attention` answers what the status query cannot. */
describe('ops: an order’s attention from the memo (issue 25)', () => {
  it('reads a waiting memo: cause, since, attempt, next try and action', () => {
    const a = attentionFromMemo(WAITING_MEMO)!;
    assert.equal(a.state, 'waiting');
    assert.equal(a.step, 'charge');
    assert.equal(a.attempt, 14);
    assert.equal(a.nextTryAt, '2026-11-24T10:45:32.000Z');
    assert.equal(attentionFromMemo({}), undefined);
    assert.equal(attentionFromMemo({ attention: { state: 'parked', step: 'charge' } }), undefined);
  });

  it('prints since when, the attempt and the next try, overdue when no worker ran it', () => {
    const a = attentionFromMemo(WAITING_MEMO)!;
    const now = Date.parse('2026-11-24T10:45:02.000Z');
    assert.deepEqual(attentionLine(a, now), [
      'waiting',
      'charge since 2026-11-24T10:41:02.000Z (4m 0s ago), attempt 14, next try 2026-11-24T10:45:32.000Z (in 30s)',
    ]);
    const late = Date.parse('2026-11-24T10:47:02.000Z');
    assert.match(
      attentionLine(a, late)[1],
      /next try .* \(due 1m 30s ago: is a worker running\?\)$/,
    );
    assert.deepEqual(
      attentionLine({ ...a, state: 'parked', nextTryAt: undefined, attempt: undefined }, late),
      ['parked', 'charge since 2026-11-24T10:41:02.000Z (6m 0s ago)'],
    );
  });

  it('shows the workflow’s Markdown action as the commands a shell takes', () => {
    for (const id of ['order-1', 'it`s odd', '--all']) {
      const plain = plainOfMarkdown(parkedActionOf(statusOf(id), 'charge'));
      for (const verb of ['retry', 'resolve', 'cancel'])
        assert.ok(
          plain.includes(shellCommand(['npx', 'onceflow', 'orders', verb, '--', id])),
          `${id}: ${plain}`,
        );
      assert.ok(plain.includes('(signal retryStep: run charge again with the same key)'), plain);
    }
    assert.equal(
      plainOfMarkdown(WAITING_MEMO.attention.action),
      'none needed: charge retries on its own with the same key until 2026-11-24T11:41:02.000Z, then parks; npx onceflow orders retry -- order-1 tries now, npx onceflow orders cancel -- order-1 compensates',
    );
  });

  it('takes the live query when a worker answers, else the memo, and says which', () => {
    const live = statusOf('order-1', {
      step: 'needs_attention',
      parked: { step: 'email', error: 'ProviderRejectedError: 422', since: '2026-11-24T10:00:00Z' },
    });
    const fromQuery = attentionOf(true, live, WAITING_MEMO);
    assert.equal(fromQuery.source, 'query');
    assert.equal(fromQuery.attention?.state, 'parked');
    assert.equal(fromQuery.attention?.cause, 'ProviderRejectedError: 422');

    const noWorker = { error: 'no answer in 5000 ms (is a worker running?)' };
    const fromMemo = attentionOf(true, noWorker, WAITING_MEMO);
    assert.equal(fromMemo.source, 'memo');
    assert.equal(fromMemo.attention?.cause, WAITING_MEMO.attention.cause);
    assert.match(fromMemo.detail, /memo `attention` \(the status query did not answer: no answer/);

    assert.equal(attentionOf(true, noWorker, {}).source, 'none');
    assert.equal(attentionOf(false, undefined, WAITING_MEMO).source, 'closed');
  });
});
