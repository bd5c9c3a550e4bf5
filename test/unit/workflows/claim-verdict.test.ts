import { strict as assert } from 'node:assert';
import { judgeClaim, type OrderClaim } from '../../../src/db/order-claim-store';

const claim: OrderClaim = {
  orderId: 'o-1',
  workflowId: 'OrderPlaced:o-1@1',
  fingerprint: 'fp-a',
  claimedAt: '2026-11-23T00:00:00.000Z',
};

describe('order claim verdicts', () => {
  it('the owner asking again is the owner, whatever fingerprint it sends', () => {
    assert.equal(
      judgeClaim(claim, { workflowId: claim.workflowId, fingerprint: 'fp-a' }).kind,
      'owner',
    );
    assert.equal(
      judgeClaim(claim, { workflowId: claim.workflowId, fingerprint: 'fp-z' }).kind,
      'owner',
    );
  });

  it('another run with the same payload is a duplicate naming the owner', () => {
    const verdict = judgeClaim(claim, { workflowId: 'OrderPlaced:evt-2', fingerprint: 'fp-a' });
    assert.deepEqual(verdict, { kind: 'duplicate', claim });
  });

  it('another run with a different payload is an order conflict carrying both fingerprints', () => {
    const verdict = judgeClaim(claim, { workflowId: 'OrderPlaced:o-1@2', fingerprint: 'fp-b' });
    assert.deepEqual(verdict, { kind: 'order-conflict', claim, fingerprint: 'fp-b' });
    assert.equal(verdict.claim.fingerprint, 'fp-a');
  });
});
