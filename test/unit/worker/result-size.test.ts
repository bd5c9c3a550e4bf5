import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityExecuteInput } from '@temporalio/worker';
import { MAX_PAYLOAD_BYTES } from '../../../src/workflows/run-budget';
import { RESULT_TOO_LARGE, ResultSizeInterceptor } from '../../../src/worker/result-size';

const run = (result: unknown) =>
  new ResultSizeInterceptor('renderLabel').execute({} as ActivityExecuteInput, async () => result);

describe('a result too large for the history', () => {
  it('passes a result under the limit as it is', async () => {
    const result = { pdf: 'x'.repeat(1000) };
    assert.equal(await run(result), result);
  });

  it('refuses one over it, not to be retried, saying the effect happened and what to do', async () => {
    const err = await run({ pdf: 'x'.repeat(MAX_PAYLOAD_BYTES) }).then(
      () => assert.fail('returned'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApplicationFailure);
    assert.equal(err.type, RESULT_TOO_LARGE);
    assert.equal(err.nonRetryable, true);
    assert.match(
      err.message,
      /the result of renderLabel is 1024 KiB .* its effect happened; resolve/,
    );
  });
});
