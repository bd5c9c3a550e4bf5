import { strict as assert } from 'node:assert';
import { ConfigError, DEFAULTS, loadConfig } from '../../../src/config';

describe('config: ORDER_TRANSIENT_RETRY_WINDOW', () => {
  it('defaults to one hour and reads a duration', () => {
    assert.equal(DEFAULTS.ORDER_TRANSIENT_RETRY_WINDOW, '1h');
    assert.equal(loadConfig({}).orders.transientRetryWindowMs, 3_600_000);
    const window = (v: string) =>
      loadConfig({ ORDER_TRANSIENT_RETRY_WINDOW: v }).orders.transientRetryWindowMs;
    assert.equal(window('20s'), 20_000);
    assert.equal(window('15m'), 900_000);
    assert.equal(window('2h'), 7_200_000);
  });

  for (const bad of ['60', '500ms', 'forever', '-1h', '1 hour'])
    it(`stops at start naming the setting for ${JSON.stringify(bad)}`, () => {
      assert.throws(
        () => loadConfig({ ORDER_TRANSIENT_RETRY_WINDOW: bad }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.length === 1 &&
          err.problems[0]!.setting === 'ORDER_TRANSIENT_RETRY_WINDOW',
      );
    });
});
