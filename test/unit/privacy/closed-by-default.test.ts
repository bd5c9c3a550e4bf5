import { strict as assert } from 'node:assert';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { Registry } from 'prom-client';
import { ConfigError, loadConfig, redactConfig, redactUrl } from '../../../src/config';
import { createPool } from '../../../src/db/pool';
import { workflowUrl } from '../../../src/temporal/ui-links';
import { serveMetrics } from '../../../src/kafka-bridge/metrics';
import { startProviders, type RunningProviders } from '../../../harness/sandbox/server';
import { metricsBindAddress } from '../../../src/worker/worker-metrics';

describe('closed by default (issue 17)', () => {
  it('bridge and worker metrics bind to loopback unless a host is configured', async () => {
    const config = loadConfig({});
    assert.equal(config.bridge.metricsHost, '127.0.0.1');
    assert.equal(config.worker.metricsHost, '127.0.0.1');
    assert.equal(loadConfig({ BRIDGE_METRICS_HOST: '0.0.0.0' }).bridge.metricsHost, '0.0.0.0');
    const server = await serveMetrics(new Registry(), 0);
    try {
      assert.equal((server.address() as AddressInfo).address, '127.0.0.1');
    } finally {
      server.close();
    }
    assert.equal(metricsBindAddress(config.worker.metricsHost, 9465), '127.0.0.1:9465');
    assert.equal(metricsBindAddress('::', 9465), '[::]:9465');
  });

  describe("providers' admin API and mail log", () => {
    // The token check runs before any route touches the database.
    const noDb = {} as pg.Pool;
    let open: RunningProviders;
    let closed: RunningProviders;
    before(async () => {
      open = await startProviders({ pool: noDb, adminToken: 'admin-secret', reapIntervalMs: 0 });
      closed = await startProviders({ pool: noDb, reapIntervalMs: 0 });
    });
    after(async () => {
      await open.close();
      await closed.close();
    });

    it('refuse requests without the bearer token, and everything when no token is set', async () => {
      const get = (p: RunningProviders, path: string, token?: string) =>
        fetch(`${p.url}${path}`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        }).then((r) => r.status);
      assert.equal(await get(open, '/admin/faults'), 401);
      assert.equal(await get(open, '/admin/faults', 'wrong'), 401);
      assert.equal(await get(open, '/admin/faults', 'admin-secret'), 200);
      assert.equal(await get(open, '/v1/emails?orderId=o-1'), 401);
      assert.equal(await get(open, '/v1/emails/em_1'), 401);
      assert.equal(await get(open, '/admin/ledger?orderId=o-1'), 401);
      const put = await fetch(`${open.url}/admin/faults`, { method: 'PUT', body: '{}' });
      assert.equal(put.status, 401);
      assert.equal(await get(closed, '/admin/faults', 'admin-secret'), 403);
    });
  });

  it('redacts URL credentials and password parameters everywhere config is printed', () => {
    assert.equal(
      redactUrl('postgres://app:s3cret@db:5432/x?password=p2&sslmode=verify-full'),
      'postgres://***:***@db:5432/x?password=***&sslmode=verify-full',
    );
    assert.equal(redactUrl('not a url'), '***');
    assert.equal(
      workflowUrl('http://ui:pw@127.0.0.1:8233', 'default', 'wf-1'),
      'http://127.0.0.1:8233/namespaces/default/workflows/wf-1',
    );
    const text = JSON.stringify(
      redactConfig(
        loadConfig({
          DATABASE_URL: 'postgres://app@db/x?password=dbpass',
          PROVIDERS_URL: 'http://u:provpass@127.0.0.1:4010',
          TEMPORAL_UI_URL: 'http://ui:uipass@127.0.0.1:8233?token=tok',
          PROVIDERS_ADMIN_TOKEN: 'admintok',
          CODEC_SERVER_TOKEN: 'codectok',
        }),
      ),
    );
    for (const secret of ['dbpass', 'provpass', 'uipass', 'tok"', 'admintok', 'codectok', 'app@']) {
      assert.ok(!text.includes(secret), `${secret} in ${text}`);
    }
  });

  it('DATABASE_SSL=require verifies chain and host name; TLS parameters in DATABASE_URL are a named error', async () => {
    const sslOf = async (env: NodeJS.ProcessEnv) => {
      const pool = createPool(loadConfig(env).database);
      const ssl = (pool as unknown as { options: { ssl?: Record<string, unknown> } }).options.ssl;
      await pool.end();
      return ssl;
    };
    // Node's own host-name check stays in place unless the mode says `verify-ca`
    // (database-tls.test.ts shows each mode against a real TLS handshake).
    for (const mode of ['require', 'verify-full']) {
      const ssl = await sslOf({ DATABASE_SSL: mode });
      assert.equal(ssl?.rejectUnauthorized, true, mode);
      assert.equal(ssl?.checkServerIdentity, undefined, mode);
    }
    const ca = await sslOf({ DATABASE_SSL: 'verify-ca' });
    assert.equal(ca?.rejectUnauthorized, true);
    assert.equal(typeof ca?.checkServerIdentity, 'function');
    assert.equal(await sslOf({}), undefined);
    for (const query of ['sslmode=disable', 'sslmode=require', 'sslrootcert=/x', 'ssl=true']) {
      assert.throws(
        () =>
          loadConfig({
            DATABASE_URL: `postgres://u@db/x?${query}`,
            DATABASE_SSL: 'verify-full',
          }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.some(
            (p) => p.setting === 'DATABASE_URL' && /override DATABASE_SSL/.test(p.message),
          ),
        query,
      );
    }
  });
});
