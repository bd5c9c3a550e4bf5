import { strict as assert } from 'node:assert';
import { ConfigError, loadConfig } from '../../../src/config';

describe('config: TENANT_WEIGHTS, PROVIDER_RATE_LIMITS, BRIDGE_MODE', () => {
  it('default to none, live', () => {
    const c = loadConfig({});
    assert.deepEqual(c.fairness, {
      tenantWeights: {},
      providerRateLimits: {},
      providerRateShare: 0.95,
    });
    assert.equal(c.bridge.mode, 'live');
    assert.equal(c.bridge.backfillFromMs, undefined);
  });

  it('read a provider as calls per second or { perSecond, perTenant }, weights as numbers', () => {
    const c = loadConfig({
      PROVIDER_RATE_LIMITS: '{"mail": 10, "card": {"perSecond": 50, "perTenant": 5}}',
      TENANT_WEIGHTS: '{"acme": 2, "tiny-shop": 0.5}',
      BRIDGE_MODE: 'backfill',
      BRIDGE_BACKFILL_FROM: '2026-05-01T00:00:00Z',
    });
    assert.deepEqual(c.fairness.providerRateLimits, {
      mail: { perSecond: 10 },
      card: { perSecond: 50, perTenant: 5 },
    });
    assert.deepEqual(c.fairness.tenantWeights, { acme: 2, 'tiny-shop': 0.5 });
    assert.equal(c.bridge.mode, 'backfill');
    assert.equal(c.bridge.backfillFromMs, Date.parse('2026-05-01T00:00:00Z'));
  });

  const bad: Array<[Record<string, string>, string, RegExp]> = [
    [{ PROVIDER_RATE_LIMITS: '{"Mail": 10}' }, 'PROVIDER_RATE_LIMITS', /lower-case/],
    [{ PROVIDER_RATE_LIMITS: '{"mail": 0}' }, 'PROVIDER_RATE_LIMITS', /calls per second/],
    [{ PROVIDER_RATE_LIMITS: '{"mail": {}}' }, 'PROVIDER_RATE_LIMITS', /calls per second|limit/],
    [{ PROVIDER_RATE_LIMITS: 'mail=10' }, 'PROVIDER_RATE_LIMITS', /not JSON/],
    [{ TENANT_WEIGHTS: '{"acme": 5000}' }, 'TENANT_WEIGHTS', /at most 1000/],
    [{ BRIDGE_MODE: 'replay' }, 'BRIDGE_MODE', /live or backfill/],
    [{ BRIDGE_BACKFILL_FROM: 'yesterday' }, 'BRIDGE_BACKFILL_FROM', /ISO time/],
  ];
  for (const [env, setting, message] of bad)
    it(`stops at start naming ${setting} for ${JSON.stringify(Object.values(env)[0])}`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.some((p) => p.setting.startsWith(setting) && message.test(p.message)),
      );
    });
});
