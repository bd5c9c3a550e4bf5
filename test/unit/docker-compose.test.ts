import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { CONFIG_KEYS, DEFAULTS, loadConfig } from '../../src/config';

interface Service {
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  profiles?: string[];
  restart?: string;
}

const composeText = readFileSync(resolve(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
/** What compose would read with a filled-in .env: `${NAME...}` replaced by a value per name. */
const interpolate = (value: string) =>
  value.replace(
    /\$\{([A-Z_]+)(:-([^}]*))?[^}]*\}/g,
    (_m, name: string, dflt?: string, v?: string) =>
      dflt !== undefined
        ? (v ?? '')
        : name === 'ONCEFLOW_ENCRYPTION_KEYS'
          ? `k1:${Buffer.alloc(32, 1).toString('base64')}`
          : `x${name}`,
  );

const compose = parse(
  composeText,
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
      const config = loadConfig(
        Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v))])),
      );
      assert.equal(config.temporal.address, 'temporal:7233');
      assert.equal(config.temporal.uiUrl, 'http://localhost:8080');
    }
  });

  it('publishes every port on loopback only', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const mapping of service.ports ?? []) {
        assert.match(mapping, /^127\.0\.0\.1:\d+:\d+$/, `${name} publishes ${mapping}`);
      }
    }
  });

  it('takes passwords, keys and tokens from .env with no default, and trusts no connection', () => {
    assert.doesNotMatch(composeText, /HOST_AUTH_METHOD/);
    for (const secret of [
      'POSTGRES_PASSWORD',
      'PROVIDERS_ADMIN_TOKEN',
      'ONCEFLOW_ENCRYPTION_KEYS',
    ]) {
      const uses = [...composeText.matchAll(new RegExp(`\\$\\{${secret}([^}]*)\\}`, 'g'))];
      assert.ok(uses.length > 0, `${secret} is used`);
      for (const [, rest] of uses) assert.match(rest!, /^:\?/, `${secret} has no default`);
    }
    const example = readFileSync(resolve(__dirname, '..', '..', '.env.example'), 'utf8');
    assert.match(example, /^POSTGRES_PASSWORD=$/m);
    assert.match(readFileSync(resolve(__dirname, '..', '..', '.gitignore'), 'utf8'), /^\.env$/m);
  });

  it('pins image versions, uses the server image (not auto-setup) and restarts services', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      assert.match(service.image ?? '', /:\d+\.\d+[.\w-]*$/, `${name} pins ${service.image}`);
      assert.doesNotMatch(service.image ?? '', /auto-setup/);
      const oneShot = service.restart === 'no';
      assert.ok(oneShot || service.restart === 'unless-stopped', `${name} restart policy`);
    }
    assert.match(compose.services.temporal!.image!, /^temporalio\/server:/);
    assert.ok(compose.services['temporal-schema'], 'schema setup service');
    assert.ok(compose.services['onceflow-codec-server'], 'codec server service');
  });
});
