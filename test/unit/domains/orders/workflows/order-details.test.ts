import { strict as assert } from 'node:assert';
import { currentDetailsOf } from '../../../../../src/domains/orders/workflows/order-details';
import {
  stepKeys,
  type OrderStatus,
} from '../../../../../src/domains/orders/workflows/order-definitions';

const base = (): OrderStatus => ({
  orderId: 'o-1',
  step: 'charging',
  recoveryPoints: [{ step: 'reserve', at: '2026-11-22T00:00:00.000Z', how: 'done' }],
  keys: stepKeys('o-1'),
});

describe('order current details (Web UI)', () => {
  it('says the step and the recovery points reached', () => {
    const text = currentDetailsOf(base());
    assert.match(text, /\*\*step\*\* charging/);
    assert.match(text, /\*\*recovery points\*\* reserve \(done\)/);
    assert.doesNotMatch(text, /action expected/);
  });

  it('when parked, names the last error, the key and the commands/signals expected', () => {
    const status: OrderStatus = {
      ...base(),
      step: 'needs_attention',
      parked: {
        step: 'charge',
        error: 'ProviderUnavailable: 503',
        since: '2026-11-22T00:01:00.000Z',
      },
    };
    const text = currentDetailsOf(status);
    assert.match(text, /last error.*charge.*ProviderUnavailable: 503/);
    assert.match(text, /npx onceflow orders retry -- o-1/);
    assert.match(text, /retryStep/);
    assert.match(text, /resolveStep/);
    assert.match(text, /cancelOrder/);
    assert.match(text, /order:o-1:charge/);
  });

  it('for a duplicate or an order conflict, names the owning run (and both fingerprints)', () => {
    const duplicate = currentDetailsOf({
      ...base(),
      step: 'duplicate',
      outcome: 'duplicate',
      owner: { workflowId: 'OrderPlaced:o-1@1', fingerprint: 'fp-a', runFingerprint: 'fp-b' },
    });
    assert.match(duplicate, /owner.*OrderPlaced:o-1@1.*same payload/);
    const conflict = currentDetailsOf({
      ...base(),
      step: 'order_conflict',
      outcome: 'order-conflict',
      owner: { workflowId: 'OrderPlaced:o-1@1', fingerprint: 'fp-a', runFingerprint: 'fp-b' },
    });
    assert.match(conflict, /fp-a.*fp-b/);
    assert.match(conflict, /order conflict/);
  });

  it('when waiting on a transient cause, says for whom, since when and until when at most', () => {
    const text = currentDetailsOf({
      ...base(),
      step: 'waiting',
      waiting: {
        step: 'charge',
        cause: 'ProviderUnreachableError: POST /v1/charges got no response (ECONNREFUSED)',
        since: '2026-11-22T10:41:00.000Z',
        until: '2026-11-22T11:41:00.000Z',
      },
    });
    assert.match(
      text,
      /waiting\*\* for the payment provider since 10:41:00 UTC, retried by Temporal until 11:41:00 UTC at most/,
    );
    assert.match(text, /ECONNREFUSED/);
    assert.match(text, /order:o-1:charge/);
    assert.doesNotMatch(text, /action expected/);
  });

  it('lists the operator actions recorded, with who, when and why', () => {
    const text = currentDetailsOf({
      ...base(),
      operatorActions: [
        { action: 'retry', by: 'alice', reason: 'provider back', at: '2026-11-22T11:00:00.000Z' },
      ],
    });
    assert.match(
      text,
      /operator actions\*\* retry by `alice` at `2026-11-22T11:00:00.000Z` \(`provider back`\)/,
    );
  });
});
