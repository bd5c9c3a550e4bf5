import { strict as assert } from 'node:assert';
import { ConfigError, loadConfig } from '../../../src/config';

describe('config: the read-ahead window, open-run caps, eager and sticky, the provider pace', () => {
  it('defaults: 2000 records and 8 MiB per partition, caps 1000 / 200 per tenant / 100 background', () => {
    const c = loadConfig({});
    assert.deepEqual(c.bridge.window, { records: 2000, bytes: 8 * 1024 * 1024 });
    assert.deepEqual(c.bridge.openRuns, { total: 1000, perTenant: 200, background: 100 });
    assert.equal(c.bridge.openRunsPollMs, 2000);
    assert.equal(c.worker.eagerActivities, 'auto');
    assert.equal(c.worker.stickyQueue, true);
    assert.equal(c.worker.stickyQueueTimeoutMs, 10_000);
    assert.equal(c.fairness.providerRateShare, 0.95);
  });

  it('reads 0 as no cap, off and durations', () => {
    const c = loadConfig({
      BRIDGE_MAX_OPEN_RUNS: '0',
      BRIDGE_MAX_OPEN_RUNS_PER_TENANT: '0',
      BRIDGE_MAX_OPEN_BACKGROUND_RUNS: '7',
      WORKER_EAGER_ACTIVITIES: 'on',
      WORKER_STICKY_QUEUE: 'off',
      WORKER_STICKY_QUEUE_TIMEOUT: '2s',
      PROVIDER_RATE_SHARE: '1',
    });
    assert.deepEqual(c.bridge.openRuns, { total: 0, perTenant: 0, background: 7 });
    assert.equal(c.worker.eagerActivities, 'on');
    assert.equal(c.worker.stickyQueue, false);
    assert.equal(c.worker.stickyQueueTimeoutMs, 2000);
    assert.equal(c.fairness.providerRateShare, 1);
  });

  for (const [name, value, message] of [
    ['BRIDGE_WINDOW_RECORDS', '0', /BRIDGE_WINDOW_RECORDS/],
    ['BRIDGE_WINDOW_BYTES', '1000', /BRIDGE_WINDOW_BYTES.*at least 65536/],
    ['BRIDGE_MAX_OPEN_RUNS_PER_TENANT', '-1', /BRIDGE_MAX_OPEN_RUNS_PER_TENANT.*0 \(no cap\)/],
    ['WORKER_EAGER_ACTIVITIES', 'maybe', /WORKER_EAGER_ACTIVITIES.*auto, on or off/],
    ['PROVIDER_RATE_SHARE', '1.5', /PROVIDER_RATE_SHARE.*at most 1/],
  ] as const)
    it(`stops at start naming ${name} for ${JSON.stringify(value)}`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
      );
    });
});
