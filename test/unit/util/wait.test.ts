import { strict as assert } from 'node:assert';
import { waitFor, WaitTimeoutError } from '../../../src/util/wait';

describe('util: waitFor', () => {
  it('returns the first value that is neither undefined nor false', async () => {
    let calls = 0;
    const value = await waitFor(() => (++calls < 3 ? undefined : `ready after ${calls}`), {
      timeoutMs: 5_000,
      intervalMs: 1,
      what: 'the third call',
    });
    assert.equal(value, 'ready after 3');
  });

  it('counts a throwing check as "not yet" and names its last error at the deadline', async () => {
    const err = await waitFor<never>(
      () => {
        throw new Error('connection refused');
      },
      { timeoutMs: 30, intervalMs: 5, what: 'the broker' },
    ).catch((e: unknown) => e);
    assert.ok(err instanceof WaitTimeoutError);
    assert.equal(err.what, 'the broker');
    assert.match(err.message, /timed out after 30 ms waiting for the broker: connection refused/);
  });

  it('gives up at the deadline when the check keeps returning false', async () => {
    const started = Date.now();
    await assert.rejects(
      waitFor(() => false, { timeoutMs: 40, intervalMs: 5, what: 'never' }),
      WaitTimeoutError,
    );
    assert.ok(Date.now() - started >= 40);
  });
});
