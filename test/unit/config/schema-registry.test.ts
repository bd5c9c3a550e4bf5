import { strict as assert } from 'node:assert';
import { ConfigError, loadConfig } from '../../../src/config';

const off = { ONCEFLOW_ENCRYPTION: 'off' };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...off, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.setting}: ${p.message}`);
    throw err;
  }
  return [];
}

describe('config: the Schema Registry settings', () => {
  it('none set: no registry', () => {
    assert.equal(loadConfig(off).schemaRegistry, undefined);
  });

  it('a URL with basic auth or a bearer token and TLS material', () => {
    const basic = loadConfig({
      ...off,
      SCHEMA_REGISTRY_URL: 'https://registry.internal/apis/ccompat/v7/',
      SCHEMA_REGISTRY_USERNAME: 'svc',
      SCHEMA_REGISTRY_PASSWORD: 'pw',
      SCHEMA_REGISTRY_CA_PATH: '/etc/ca.pem',
    }).schemaRegistry;
    assert.deepEqual(basic, {
      url: 'https://registry.internal/apis/ccompat/v7',
      auth: { username: 'svc', password: 'pw' },
      tls: { caPath: '/etc/ca.pem', certPath: undefined, keyPath: undefined },
      timeoutMs: 10_000,
    });
    const bearer = loadConfig({
      ...off,
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081',
      SCHEMA_REGISTRY_BEARER_TOKEN: 't',
    }).schemaRegistry;
    assert.deepEqual(bearer?.auth, { bearerToken: 't' });
  });

  it('a bad combination stops the process at start, naming the setting', () => {
    const url = { SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081' };
    assert.deepEqual(problemsOf({ SCHEMA_REGISTRY_USERNAME: 'svc' }), [
      'SCHEMA_REGISTRY_USERNAME: is set but SCHEMA_REGISTRY_URL is not',
    ]);
    assert.deepEqual(problemsOf({ ...url, SCHEMA_REGISTRY_USERNAME: 'svc' }), [
      'SCHEMA_REGISTRY_PASSWORD: basic auth needs a user name and a password',
    ]);
    assert.match(
      problemsOf({ SCHEMA_REGISTRY_URL: 'http://svc:pw@127.0.0.1:8081' }).join(),
      /SCHEMA_REGISTRY_URL: must not carry credentials/,
    );
    assert.match(
      problemsOf({ ...url, SCHEMA_REGISTRY_CA_PATH: '/ca.pem' }).join(),
      /SCHEMA_REGISTRY_URL: is http:\/\/ but TLS settings are set/,
    );
    assert.match(
      problemsOf({
        ...url,
        SCHEMA_REGISTRY_USERNAME: 'svc',
        SCHEMA_REGISTRY_PASSWORD: 'pw',
        SCHEMA_REGISTRY_BEARER_TOKEN: 't',
      }).join(),
      /SCHEMA_REGISTRY_BEARER_TOKEN: is set with SCHEMA_REGISTRY_USERNAME/,
    );
    assert.match(
      problemsOf({ SCHEMA_REGISTRY_URL: 'registry:8081' }).join(),
      /SCHEMA_REGISTRY_URL/,
    );
  });
});
