import { strict as assert } from 'node:assert';
import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import type { TransientFailureDetails } from '../../../src/activities/transient-failure';
import {
  describeFailure,
  TIMEOUT_FALLBACK_WINDOW_MS,
  transientCauseOf,
} from '../../../src/workflows/failures';

const details: TransientFailureDetails = {
  transient: true,
  windowMs: 20_000,
  retryAfterMs: 45_000,
  endpoint: 'POST /v1/charges',
  key: 'order:o-1:charge',
};
const activityFailure = (cause: Error) =>
  new ActivityFailure(
    'failed',
    'chargePayment',
    '1',
    RetryState.MAXIMUM_ATTEMPTS_REACHED,
    undefined,
    cause,
  );
const appFailure = (type: string, withDetails: boolean, nonRetryable = false) =>
  ApplicationFailure.create({
    type,
    message: `${type} happened`,
    nonRetryable,
    details: withDetails ? [details] : [],
  });

describe('transient causes (wait) versus everything else (park)', () => {
  it('reads the window and Retry-After from a transient provider failure', () => {
    for (const type of [
      'ProviderUnreachableError',
      'ProviderTimeoutError',
      'ProviderRateLimitedError',
      'ProviderUnavailableError',
      'IdempotencyKeyInUseError',
    ])
      assert.deepEqual(transientCauseOf(activityFailure(appFailure(type, true))), {
        windowMs: 20_000,
        retryAfterMs: 45_000,
      });
  });

  it('parks on permanent causes, unknown errors and transient types without the window', () => {
    assert.equal(
      transientCauseOf(activityFailure(appFailure('IdempotencyKeyReused', true, true))),
      undefined,
    );
    assert.equal(
      transientCauseOf(activityFailure(appFailure('ProviderRequestRejected', false, true))),
      undefined,
    );
    assert.equal(transientCauseOf(activityFailure(appFailure('TypeError', false))), undefined);
    assert.equal(
      transientCauseOf(activityFailure(appFailure('ProviderUnavailableError', false))),
      undefined,
    );
    assert.equal(transientCauseOf(new Error('not an activity failure')), undefined);
  });

  it('an activity timeout waits: in the window the step learned, else the default window', () => {
    const timeout = activityFailure(
      new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE),
    );
    assert.deepEqual(transientCauseOf(timeout), { windowMs: TIMEOUT_FALLBACK_WINDOW_MS });
    assert.deepEqual(transientCauseOf(timeout, 60_000), { windowMs: 60_000 });
  });

  it('describes a failure by its named type', () => {
    assert.equal(
      describeFailure(activityFailure(appFailure('ProviderUnreachableError', true))),
      'ProviderUnreachableError: ProviderUnreachableError happened',
    );
  });
});
