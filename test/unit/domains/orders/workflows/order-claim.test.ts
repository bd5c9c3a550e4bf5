import { strict as assert } from 'node:assert';
import {
  judgeClaim,
  LEGACY_CLAIM_CLOCK_SKEW_MS,
  nothingToCompensate,
} from '../../../../../src/db/entity-claim';
import {
  SETTLED_STATES,
  type OrderClaim,
} from '../../../../../src/domains/orders/workflows/order-claim';

const claim: OrderClaim = {
  orderId: 'o-1',
  workflowId: 'OrderPlaced:o-1@1',
  runId: 'run-first',
  fingerprint: 'fp-a',
  claimedAt: '2026-11-23T00:00:00.000Z',
};

/** The claim as an older worker wrote it: no run ID (migration 0006 came later). */
const legacy: OrderClaim = {
  orderId: 'o-1',
  workflowId: 'OrderPlaced:o-1@1',
  fingerprint: 'fp-a',
  claimedAt: '2026-11-23T00:00:00.000Z',
};
const at = (offsetMs: number) => new Date(Date.parse(legacy.claimedAt) + offsetMs).toISOString();

describe('order claim verdicts', () => {
  it("the owner's chain asking again is the owner, whatever fingerprint it sends", () => {
    // An activity retry, a worker crash, a workflow retry, continue-as-new or a reset: all
    // keep the first execution run ID.
    for (const fingerprint of ['fp-a', 'fp-z'])
      assert.equal(
        judgeClaim(claim, { workflowId: claim.workflowId, runId: 'run-first', fingerprint }).kind,
        'owner',
      );
  });

  it('a new run under the SAME workflow ID (Temporal forgot the owner) is a duplicate', () => {
    // The bug of issue 23: the ledger reaped, the run deleted by retention, the event re-read.
    const verdict = judgeClaim(claim, {
      workflowId: claim.workflowId,
      runId: 'run-after-retention',
      fingerprint: 'fp-a',
    });
    assert.deepEqual(verdict, { kind: 'duplicate', claim });
  });

  it('a settled order stays settled for every run but the owner chain', () => {
    const settled: OrderClaim = { ...claim, settled: 'completed', settledAt: claim.claimedAt };
    const candidate = { workflowId: claim.workflowId, runId: 'run-2', fingerprint: 'fp-a' };
    assert.equal(judgeClaim(settled, candidate).kind, 'duplicate');
    assert.equal(judgeClaim(settled, { ...candidate, runId: 'run-first' }).kind, 'owner');
  });

  it('another run with the same payload is a duplicate naming the owner', () => {
    const verdict = judgeClaim(claim, {
      workflowId: 'OrderPlaced:evt-2',
      runId: 'run-x',
      fingerprint: 'fp-a',
    });
    assert.deepEqual(verdict, { kind: 'duplicate', claim });
  });

  it('another run with a different payload is an order conflict carrying both fingerprints', () => {
    const verdict = judgeClaim(claim, {
      workflowId: 'OrderPlaced:o-1@2',
      runId: 'run-y',
      fingerprint: 'fp-b',
    });
    assert.deepEqual(verdict, { kind: 'conflict', claim, fingerprint: 'fp-b' });
    // Even under the owner's workflow ID: a different payload is never acted on.
    const sameId = judgeClaim(claim, {
      workflowId: claim.workflowId,
      runId: 'run-z',
      fingerprint: 'fp-b',
    });
    assert.equal(sameId.kind, 'conflict');
  });

  it('a claim without a run ID: the run of its workflow ID that started before it is the owner', () => {
    const ownerRun = { workflowId: legacy.workflowId, runId: 'r1', fingerprint: 'fp-a' };
    assert.equal(judgeClaim(legacy, { ...ownerRun, startedAt: at(-5) }).kind, 'owner');
    // Clocks of Temporal and Postgres may disagree by a little.
    assert.equal(judgeClaim(legacy, { ...ownerRun, startedAt: at(30_000) }).kind, 'owner');
    // A run of the same ID started days later is a re-read after Temporal forgot the owner.
    const later = judgeClaim(legacy, { ...ownerRun, startedAt: at(3 * 86_400_000) });
    assert.equal(later.kind, 'duplicate');
    assert.equal(
      judgeClaim(legacy, { ...ownerRun, startedAt: at(LEGACY_CLAIM_CLOCK_SKEW_MS + 1) }).kind,
      'duplicate',
    );
    // Another workflow ID is never the owner.
    assert.equal(
      judgeClaim(legacy, { ...ownerRun, workflowId: 'OrderPlaced:e:x', startedAt: at(-5) }).kind,
      'duplicate',
    );
  });

  it('a caller without a run ID (an activity an older worker scheduled) is judged by workflow ID', () => {
    assert.equal(
      judgeClaim(claim, { workflowId: claim.workflowId, fingerprint: 'fp-a' }).kind,
      'owner',
    );
    assert.equal(judgeClaim(claim, { workflowId: 'other', fingerprint: 'fp-a' }).kind, 'duplicate');
  });

  it('only a completed order has anything left for a cancellation to undo', () => {
    assert.deepEqual(
      SETTLED_STATES.filter((s) => !nothingToCompensate(s)),
      ['completed'],
    );
    assert.equal(nothingToCompensate(undefined), false, 'unsettled: the owner may still run');
  });
});
