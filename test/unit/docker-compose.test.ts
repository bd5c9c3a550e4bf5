import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { CONFIG_KEYS, DEFAULTS, loadConfig } from '../../src/config';

interface Service {
  ports?: string[];
  environment?: Record<string, string>;
  profiles?: string[];
}

const compose = parse(
  readFileSync(resolve(__dirname, '..', '..', 'docker-compose.yml'), 'utf8'),
  // Compose resolves `<<:` merge keys; so must the test.
  { merge: true },
) as { services: Record<string, Service> };

function hostPort(service: string, containerPort: number): number {
  const mapping = compose.services[service]?.ports?.find((p) => p.endsWith(`:${containerPort}`));
  assert.ok(mapping, `${service} publishes ${containerPort}`);
  return Number(mapping.split(':').at(-2));
}

const portOf = (address: string) => Number(address.split(':').at(-1));

describe('docker-compose.yml', () => {
  it('parses and has the services the README names', () => {
    for (const name of [
      'postgresql',
      'temporal',
      'temporal-ui',
      'kafka',
      'onceflow-worker',
      'onceflow-bridge',
    ]) {
      assert.ok(compose.services[name], `service ${name}`);
    }
  });

  it('publishes the ports the config defaults point at', () => {
    assert.equal(hostPort('temporal', 7233), portOf(DEFAULTS.TEMPORAL_ADDRESS));
    assert.equal(hostPort('kafka', 9092), portOf(DEFAULTS.KAFKA_BROKERS));
    assert.equal(hostPort('postgresql', 5432), Number(new URL(DEFAULTS.DATABASE_URL).port));
    assert.equal(hostPort('temporal-ui', 8080), 8080);
  });

  it('creates the user and database of the default DATABASE_URL', () => {
    const env = compose.services.postgresql!.environment!;
    const url = new URL(DEFAULTS.DATABASE_URL);
    assert.equal(env.POSTGRES_USER, url.username);
    assert.equal(env.POSTGRES_DB, url.pathname.slice(1));
  });

  it('gives onceflow containers only settings the config module reads, and valid ones', () => {
    const apps = Object.entries(compose.services).filter(([name]) => name.startsWith('onceflow-'));
    assert.ok(apps.length > 0);
    for (const [name, service] of apps) {
      const env = service.environment ?? {};
      for (const key of Object.keys(env)) {
        assert.ok(CONFIG_KEYS.includes(key), `${name}: ${key} is a config setting`);
      }
      const config = loadConfig(env);
      assert.equal(config.temporal.address, 'temporal:7233');
      assert.equal(config.temporal.uiUrl, 'http://localhost:8080');
    }
  });
});
