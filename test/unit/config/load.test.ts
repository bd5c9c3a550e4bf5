import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ConfigError, DEFAULTS, loadConfig, redactConfig } from '../../../src/config';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    return err.problems.map((p) => p.setting);
  }
  return [];
}

describe('config', () => {
  it('uses the documented defaults when nothing is set', () => {
    const c = loadConfig({});
    assert.equal(c.temporal.address, DEFAULTS.TEMPORAL_ADDRESS);
    assert.equal(c.temporal.namespace, 'default');
    assert.equal(c.temporal.tls, undefined);
    assert.deepEqual(c.kafka.brokers, [DEFAULTS.KAFKA_BROKERS]);
    assert.deepEqual(c.kafka.topics, ['orders']);
    assert.equal(c.kafka.partitions, 6);
    assert.equal(c.kafka.ssl, undefined);
    assert.equal(c.kafka.sasl, undefined);
    assert.equal(c.database.url, DEFAULTS.DATABASE_URL);
    assert.equal(c.database.ssl, 'disable');
  });

  it('treats empty strings as unset', () => {
    assert.equal(loadConfig({ TEMPORAL_ADDRESS: '' }).temporal.address, DEFAULTS.TEMPORAL_ADDRESS);
  });

  it('parses lists and numbers', () => {
    const c = loadConfig({
      KAFKA_BROKERS: 'a:9092, b:9093',
      KAFKA_TOPICS: 'orders,payments',
      KAFKA_TOPIC_PARTITIONS: '12',
    });
    assert.deepEqual(c.kafka.brokers, ['a:9092', 'b:9093']);
    assert.deepEqual(c.kafka.topics, ['orders', 'payments']);
    assert.equal(c.kafka.partitions, 12);
  });

  it('reads the bridge session timeout, and names it when it is not a usable number', () => {
    assert.equal(loadConfig({}).bridge.sessionTimeoutMs, 30_000);
    assert.equal(
      loadConfig({ BRIDGE_SESSION_TIMEOUT_MS: '10000' }).bridge.sessionTimeoutMs,
      10_000,
    );
    for (const bad of ['soon', '2000', '1.5e4x'])
      assert.deepEqual(problemsOf({ BRIDGE_SESSION_TIMEOUT_MS: bad }), [
        'BRIDGE_SESSION_TIMEOUT_MS',
      ]);
  });

  it('bounds the worker sticky cache, 250 by default, and names a bad value', () => {
    assert.equal(loadConfig({}).worker.maxCachedWorkflows, 250);
    assert.equal(loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '40' }).worker.maxCachedWorkflows, 40);
    assert.equal(loadConfig({}).worker.workflowTaskPollers, 10);
    assert.equal(loadConfig({ WORKER_ACTIVITY_TASK_POLLERS: '2' }).worker.activityTaskPollers, 2);
    assert.throws(
      () => loadConfig({ WORKER_WORKFLOW_TASK_POLLERS: '1' }),
      /WORKER_WORKFLOW_TASK_POLLERS.*at least 2/,
    );
    for (const bad of ['0', 'lots', '-3'])
      assert.deepEqual(problemsOf({ WORKER_MAX_CACHED_WORKFLOWS: bad }), [
        'WORKER_MAX_CACHED_WORKFLOWS',
      ]);
  });

  it('reads the Postgres timeouts with their defaults, 0 turning a server timeout off', () => {
    const d = loadConfig({}).database;
    assert.deepEqual(
      [d.connectTimeoutMs, d.statementTimeoutMs, d.idleInTransactionTimeoutMs],
      [5000, 15000, 30000],
    );
    const c = loadConfig({
      DATABASE_STATEMENT_TIMEOUT_MS: '0',
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1000',
      DATABASE_CONNECT_TIMEOUT_MS: '250',
    }).database;
    assert.deepEqual(
      [c.connectTimeoutMs, c.statementTimeoutMs, c.idleInTransactionTimeoutMs],
      [250, 0, 1000],
    );
    assert.deepEqual(problemsOf({ DATABASE_CONNECT_TIMEOUT_MS: '0' }), [
      'DATABASE_CONNECT_TIMEOUT_MS',
    ]);
    assert.deepEqual(problemsOf({ DATABASE_STATEMENT_TIMEOUT_MS: 'soon' }), [
      'DATABASE_STATEMENT_TIMEOUT_MS',
    ]);
    assert.deepEqual(problemsOf({ DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '-1' }), [
      'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
    ]);
  });

  it('names every bad setting in one error', () => {
    assert.deepEqual(
      problemsOf({
        KAFKA_BROKERS: 'no-port',
        TEMPORAL_ADDRESS: 'x',
        DATABASE_URL: 'mysql://x',
        KAFKA_TOPIC_PARTITIONS: '0',
        LOG_LEVEL: 'loud',
      }).sort(),
      ['DATABASE_URL', 'KAFKA_BROKERS', 'KAFKA_TOPIC_PARTITIONS', 'LOG_LEVEL', 'TEMPORAL_ADDRESS'],
    );
  });

  it('requires SASL credentials with a mechanism, and a mechanism with credentials', () => {
    assert.deepEqual(problemsOf({ KAFKA_SASL_MECHANISM: 'scram-sha-512' }).sort(), [
      'KAFKA_SASL_PASSWORD',
      'KAFKA_SASL_USERNAME',
    ]);
    assert.deepEqual(problemsOf({ KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }), [
      'KAFKA_SASL_MECHANISM',
    ]);
    assert.deepEqual(problemsOf({ KAFKA_SASL_MECHANISM: 'kerberos' }), ['KAFKA_SASL_MECHANISM']);
  });

  it('supports production settings: Temporal mTLS or API key, Kafka SSL+SASL, Postgres SSL', () => {
    const c = loadConfig({
      TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'ns.acct',
      TEMPORAL_API_KEY: 'secret-key',
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'svc',
      KAFKA_SASL_PASSWORD: 'kafka-secret',
      DATABASE_URL: 'postgres://app:pg-secret@db.internal:5432/onceflow',
      DATABASE_SSL: 'verify-full',
    });
    assert.ok(c.temporal.tls, 'an API key turns TLS on');
    assert.equal(c.temporal.apiKey, 'secret-key');
    assert.deepEqual(c.kafka.ssl, { caPath: undefined });
    assert.equal(c.kafka.sasl?.mechanism, 'plain');
    assert.equal(c.database.ssl, 'verify-full');
    assert.deepEqual(problemsOf({ TEMPORAL_TLS_CERT_PATH: '/c.pem' }), ['TEMPORAL_TLS_KEY_PATH']);
    assert.deepEqual(problemsOf({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' }), [
      'TEMPORAL_TLS',
    ]);
  });

  it('refuses SASL PLAIN without TLS unless KAFKA_SASL_PLAIN_WITHOUT_TLS says so', () => {
    const plain = { KAFKA_SASL_USERNAME: 'svc', KAFKA_SASL_PASSWORD: 'p' };
    const refused = problemsOf({ ...plain, KAFKA_SASL_MECHANISM: 'plain' });
    assert.deepEqual(refused, ['KAFKA_SASL_MECHANISM']);
    assert.throws(
      () => loadConfig({ ...plain, KAFKA_SASL_MECHANISM: 'plain' }),
      /password would cross the network in clear/,
    );
    assert.deepEqual(
      problemsOf({ ...plain, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SSL: 'true' }),
      [],
    );
    assert.deepEqual(
      problemsOf({ ...plain, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SSL_CA_PATH: '/ca.pem' }),
      [],
    );
    assert.deepEqual(
      problemsOf({ ...plain, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PLAIN_WITHOUT_TLS: 'true' }),
      [],
    );
    // SCRAM never sends the password itself: allowed without TLS.
    assert.deepEqual(problemsOf({ ...plain, KAFKA_SASL_MECHANISM: 'scram-sha-512' }), []);
  });

  it('a URL setting without an http(s) scheme is a config error, never a CORS origin `null`', () => {
    for (const setting of ['TEMPORAL_UI_URL', 'CODEC_SERVER_CORS_ORIGIN', 'PROVIDERS_URL']) {
      for (const bad of ['localhost:8080', '127.0.0.1:8233', 'file:///x', 'javascript:alert(1)'])
        assert.deepEqual(problemsOf({ [setting]: bad }), [setting], `${setting}=${bad}`);
    }
    assert.equal(
      loadConfig({ TEMPORAL_UI_URL: 'https://ui.example:8443/' }).codecServer.corsOrigin,
      'https://ui.example:8443',
    );
  });

  it('redacts secrets for logging', () => {
    const c = loadConfig({
      TEMPORAL_API_KEY: 'secret-key',
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'svc',
      KAFKA_SASL_PASSWORD: 'kafka-secret',
      DATABASE_URL: 'postgres://app:pg-secret@db.internal:5432/onceflow',
    });
    const text = JSON.stringify(redactConfig(c));
    for (const secret of ['secret-key', 'kafka-secret', 'pg-secret']) {
      assert.ok(!text.includes(secret), `${secret} must not appear`);
    }
    assert.ok(text.includes('svc'), 'non-secrets stay readable');
  });

  it('stops the bridge at start when BRIDGE_EXTRA_ROUTES is malformed, naming it', () => {
    const root = resolve(__dirname, '..', '..', '..');
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', resolve(root, 'src/kafka-bridge/main.ts')],
      {
        cwd: root,
        env: {
          ...process.env,
          ONCEFLOW_ENCRYPTION: 'off',
          BRIDGE_EXTRA_ROUTES: '{"InvoiceIssued": {"identity": "random"}}',
        },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 78, r.stderr);
    assert.match(r.stderr, /BRIDGE_EXTRA_ROUTES/);
  });

  it('stops an entry point at start with a message naming the bad setting', () => {
    const root = resolve(__dirname, '..', '..', '..');
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', resolve(root, 'src/worker/main.ts')],
      {
        cwd: root,
        env: { ...process.env, KAFKA_BROKERS: 'not a broker', DATABASE_SSL: 'maybe' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 78, r.stderr);
    assert.match(r.stderr, /KAFKA_BROKERS: must be host:port/);
    assert.match(r.stderr, /DATABASE_SSL: must be disable, require, verify-ca or verify-full/);
  });
});

describe('config: encryption is required at start', () => {
  it('an entry point without a key stops naming ONCEFLOW_ENCRYPTION_KEYS', () => {
    const root = resolve(__dirname, '..', '..', '..');
    // Services named, so the local stack (and its dev key) is not used, whether one runs or not.
    const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:7233' };
    delete env.ONCEFLOW_ENCRYPTION_KEYS;
    delete env.ONCEFLOW_ENCRYPTION_KEY_FILE;
    delete env.ONCEFLOW_ENCRYPTION;
    // Only TEMPORAL_ADDRESS names a service, whatever the suite's own environment sets.
    delete env.KAFKA_BROKERS;
    delete env.DATABASE_URL;
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', resolve(root, 'src/worker/main.ts')],
      {
        cwd: root,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 78, r.stderr);
    assert.match(r.stderr, /^Invalid configuration:\n {2}ONCEFLOW_ENCRYPTION_KEYS: is required/);
    assert.match(r.stderr, /ONCEFLOW_ENCRYPTION=off/);
    assert.match(r.stderr, /local stack and its dev key are not used: TEMPORAL_ADDRESS is set/);
  });
});
