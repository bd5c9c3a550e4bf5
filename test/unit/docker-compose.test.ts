import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { checkCodecServerConfig } from '../../src/codec-server/main';
import { isLoopbackHost } from '../../src/codec-server/server';
import { CONFIG_KEYS, DEFAULTS, loadConfig } from '../../src/config';

interface Service {
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  profiles?: string[];
  restart?: string;
  volumes?: string[];
  network_mode?: string;
  command?: string[] | string;
}

const ROOT = resolve(__dirname, '..', '..');
const composeText = readFileSync(resolve(ROOT, 'docker-compose.yml'), 'utf8');
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

/** A service's environment as the container would see it, with a filled-in .env. */
function envOf(service: string): Record<string, string> {
  const env = compose.services[service]?.environment ?? {};
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v))]));
}

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

  it('creates the owner role and database of the default DATABASE_URL', () => {
    const env = compose.services.postgresql!.environment!;
    const url = new URL(DEFAULTS.DATABASE_URL);
    assert.equal(env.ONCEFLOW_DB_OWNER, url.username);
    assert.equal(env.ONCEFLOW_DB, url.pathname.slice(1));
  });

  it('gives onceflow containers only settings the config module reads, and valid ones', () => {
    const apps = Object.entries(compose.services).filter(([name]) => name.startsWith('onceflow-'));
    assert.ok(apps.length > 0);
    for (const [name, service] of apps) {
      const env = service.environment ?? {};
      for (const key of Object.keys(env)) {
        assert.ok(CONFIG_KEYS.includes(key), `${name}: ${key} is a config setting`);
      }
      const config = loadConfig(envOf(name));
      if (env.TEMPORAL_ADDRESS) assert.equal(config.temporal.address, 'temporal:7233');
      assert.equal(config.temporal.uiUrl, 'http://localhost:8080');
    }
    // Every process that reads Temporal payloads refuses unencrypted ones (a new install has
    // no history from before encryption).
    for (const name of ['onceflow-worker', 'onceflow-bridge'])
      assert.equal(loadConfig(envOf(name)).encryption.strict, true, name);
  });

  describe('security review (issue 23)', () => {
    it('never runs the codec server unauthenticated off loopback', () => {
      const name = 'onceflow-codec-server';
      const service = compose.services[name]!;
      const config = loadConfig(envOf(name));
      // The codec server's own check, the one that holds outside compose too.
      assert.doesNotThrow(() => checkCodecServerConfig(config));
      if (config.codecServer.auth === 'none') {
        assert.ok(isLoopbackHost(config.codecServer.host), config.codecServer.host);
        // Loopback inside a bridged container would be unreachable, and publishing it would
        // need a non-loopback bind: on the host network, loopback is the host's.
        assert.equal(service.network_mode, 'host');
        assert.equal(service.ports, undefined);
      }
      // The UI's browser finds it where it listens.
      const endpoint = new URL(
        compose.services['temporal-ui']!.environment!.TEMPORAL_CODEC_ENDPOINT!,
      );
      assert.ok(isLoopbackHost(endpoint.hostname), endpoint.hostname);
      assert.equal(Number(endpoint.port), config.codecServer.port);
      assert.equal(config.codecServer.corsOrigin, 'http://localhost:8080');
    });

    it("gives onceflow a least-privilege database role, apart from Temporal's and the superuser", () => {
      const pg = compose.services.postgresql!.environment!;
      const roles = {
        superuser: pg.POSTGRES_USER!,
        temporal: pg.TEMPORAL_DB_USER!,
        owner: pg.ONCEFLOW_DB_OWNER!,
        app: pg.ONCEFLOW_DB_USER!,
        worker: pg.ONCEFLOW_WORKER_DB_USER!,
      };
      assert.equal(new Set(Object.values(roles)).size, 5, JSON.stringify(roles));
      const userOf = (name: string) => new URL(envOf(name).DATABASE_URL!).username;
      // Migrations (DDL) as the owner; the worker (which stores builds) as its own role;
      // everything else that runs for good as the app role.
      assert.equal(userOf('onceflow-setup'), roles.owner);
      assert.equal(userOf('onceflow-worker'), roles.worker);
      for (const name of ['onceflow-providers', 'onceflow-bridge'])
        assert.equal(userOf(name), roles.app, name);
      assert.equal(compose.services['temporal-schema']!.environment!.SQL_USER, roles.temporal);
      assert.equal(compose.services.temporal!.environment!.POSTGRES_USER, roles.temporal);
      // The roles come from docker/postgres (tested against a real Postgres in
      // test/integration/privacy/database-roles.test.ts), mounted as the image's init folder.
      assert.ok(
        compose.services.postgresql!.volumes!.includes(
          './docker/postgres:/docker-entrypoint-initdb.d:ro',
        ),
      );
      const script = readFileSync(resolve(ROOT, 'docker/postgres/10-onceflow-roles.sh'), 'utf8');
      const sql = readFileSync(resolve(ROOT, 'docker/postgres/onceflow-roles.psql'), 'utf8');
      const given = new Set([...script.matchAll(/-v (\w+)=/g)].map((m) => m[1]!));
      const used = new Set([...sql.matchAll(/:['"](\w+)['"]/g)].map((m) => m[1]!));
      assert.deepEqual([...used].sort(), [...given].sort(), 'the script sets every variable');
      for (const v of script.matchAll(/"\$(\w+)"/g))
        if (v[1] !== 'POSTGRES_USER') assert.ok(pg[v[1]!], `postgresql sets ${v[1]}`);
      assert.match(sql, /REVOKE ALL ON DATABASE/);
      assert.match(sql, /WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE/);
      assert.doesNotMatch(sql, /GRANT ALL/);
      const tableGrants = [...sql.matchAll(/GRANT ([A-Z, ]+) ON (?:ALL )?TABLES/g)].map(
        (m) => m[1],
      );
      assert.ok(tableGrants.length >= 2);
      for (const g of tableGrants) assert.equal(g, 'SELECT, INSERT, UPDATE, DELETE');
    });

    it('gives each service only the secrets it uses', () => {
      const allowed: Record<string, string[]> = {
        postgresql: [
          'POSTGRES_PASSWORD',
          'TEMPORAL_DB_PASSWORD',
          'ONCEFLOW_DB_OWNER_PASSWORD',
          'ONCEFLOW_DB_PASSWORD',
          'ONCEFLOW_WORKER_DB_PASSWORD',
        ],
        'temporal-schema': ['TEMPORAL_DB_PASSWORD'],
        temporal: ['TEMPORAL_DB_PASSWORD'],
        'onceflow-setup': ['ONCEFLOW_DB_OWNER_PASSWORD'],
        'onceflow-providers': ['ONCEFLOW_DB_PASSWORD', 'PROVIDERS_ADMIN_TOKEN'],
        'onceflow-codec-server': ['ONCEFLOW_ENCRYPTION_KEYS'],
        'onceflow-worker': ['ONCEFLOW_WORKER_DB_PASSWORD', 'ONCEFLOW_ENCRYPTION_KEYS'],
        'onceflow-bridge': ['ONCEFLOW_DB_PASSWORD', 'ONCEFLOW_ENCRYPTION_KEYS'],
      };
      for (const [name, service] of Object.entries(compose.services)) {
        const text = JSON.stringify(service);
        const used = [...new Set([...text.matchAll(/\$\{(\w+)/g)].map((m) => m[1]!))].sort();
        assert.deepEqual(used, [...(allowed[name] ?? [])].sort(), name);
      }
      // Every secret is in .env.example, without a value.
      const example = readFileSync(resolve(ROOT, '.env.example'), 'utf8');
      for (const secret of new Set(Object.values(allowed).flat()))
        assert.match(example, new RegExp(`^${secret}=$`, 'm'), secret);
    });

    it('mounts the repository read-only; only setup writes the built copy', () => {
      for (const [name, service] of Object.entries(compose.services)) {
        for (const volume of service.volumes ?? []) {
          const [source, target, mode] = volume.split(':');
          if (source!.startsWith('.') || source!.startsWith('/'))
            assert.equal(mode, 'ro', `${name} mounts ${source} at ${target} writable`);
          if (source === 'onceflow-app' && name !== 'onceflow-setup')
            assert.equal(mode, 'ro', `${name} mounts the built copy writable`);
        }
      }
      const setup = compose.services['onceflow-setup']!;
      assert.ok(setup.volumes!.includes('.:/src:ro'));
      // What setup copies names its sources one by one: never .env, .git or .onceflow.
      const command = JSON.stringify(setup.command);
      assert.match(command, /tar -C \/src -cf - --exclude=node_modules package\.json/);
      assert.doesNotMatch(command, /\.env|\.git|\.onceflow|cp -a \/src\/\./);
    });
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
      'TEMPORAL_DB_PASSWORD',
      'ONCEFLOW_DB_OWNER_PASSWORD',
      'ONCEFLOW_DB_PASSWORD',
      'ONCEFLOW_WORKER_DB_PASSWORD',
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
