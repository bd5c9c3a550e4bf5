import { strict as assert } from 'node:assert';
import { waitingRound } from '../../../src/workflows/call-rounds';
import { activityOptionsOf, FAST_PHASE_ATTEMPTS } from '../../../src/workflows/retry-classes';

describe("a call's activity options", () => {
  it('wait for a cancelled attempt to finish: never TRY_CANCEL, which the proto makes the default', () => {
    for (const retry of ['foreign', 'own', 'settle'] as const)
      assert.equal(activityOptionsOf(retry, {}).cancellationType, 'WAIT_CANCELLATION_COMPLETED');
  });

  it('a fast round is the class budget; a waiting round retries every interval until the window is spent', () => {
    const fast = activityOptionsOf('foreign', { nonRetryable: ['PaymentDeclined'] });
    assert.equal(fast.retry?.maximumAttempts, FAST_PHASE_ATTEMPTS);
    assert.equal(fast.scheduleToCloseTimeout, undefined);
    const round = activityOptionsOf('foreign', {
      nonRetryable: ['PaymentDeclined'],
      round: { leftMs: 3_600_000, intervalMs: 30_000 },
    });
    assert.equal(round.scheduleToCloseTimeout, 3_600_000);
    assert.equal(round.retry?.maximumAttempts, undefined, 'as many attempts as the window holds');
    assert.equal(round.retry?.initialInterval, 30_000);
    assert.equal(round.retry?.maximumInterval, 30_000);
    assert.equal(round.retry?.backoffCoefficient, 1);
    assert.ok(round.retry?.nonRetryableErrorTypes?.includes('PaymentDeclined'));
    assert.equal(
      round.startToCloseTimeout,
      fast.startToCloseTimeout,
      'one attempt as long as ever',
    );
  });

  it('a waiting round tries again at least once before its window is spent', () => {
    assert.deepEqual(waitingRound({ windowMs: 15_000, intervalMs: 30_000 }, 15_000), {
      leftMs: 15_000,
      intervalMs: 7_500,
    });
    assert.deepEqual(waitingRound({ windowMs: 3_600_000, retryAfterMs: 60_000 }, 3_000_000), {
      leftMs: 3_000_000,
      intervalMs: 60_000,
    });
  });
});
