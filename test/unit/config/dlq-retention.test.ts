import { strict as assert } from 'node:assert';
import { ConfigError, DEFAULTS, loadConfig } from '../../../src/config';

describe('config: BRIDGE_DLQ_RETENTION_DAYS', () => {
  it('defaults to 30 days and reads a value', () => {
    assert.equal(DEFAULTS.BRIDGE_DLQ_RETENTION_DAYS, '30');
    assert.equal(loadConfig({}).bridge.dlqRetentionDays, 30);
    assert.equal(loadConfig({ BRIDGE_DLQ_RETENTION_DAYS: '90' }).bridge.dlqRetentionDays, 90);
  });

  for (const bad of ['0', '-1', '1.5', 'forever', '36501'])
    it(`stops at start naming the setting for ${JSON.stringify(bad)}`, () => {
      assert.throws(
        () => loadConfig({ BRIDGE_DLQ_RETENTION_DAYS: bad }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.length === 1 &&
          err.problems[0]!.setting === 'BRIDGE_DLQ_RETENTION_DAYS' &&
          /BRIDGE_DLQ_RETENTION_DAYS/.test(err.message),
      );
    });
});
