import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CONFIG_KEYS,
  loadConfig,
  redactConfig,
  SETTINGS,
  shownDefaultOf,
  type SettingName,
} from '../../../src/config';

/** `variable → default cell` of the settings table in docs/configuration.md. */
function documentedDefaults(): Map<string, string> {
  const page = readFileSync(
    resolve(__dirname, '..', '..', '..', 'docs', 'configuration.md'),
    'utf8',
  );
  const section = page.split(/^## /m).find((s) => s.startsWith('Settings\n'));
  assert.ok(section, 'docs/configuration.md has a "## Settings" section');
  const out = new Map<string, string>();
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const [names, defaults] = line
      .split('|')
      .slice(1, 3)
      .map((c) => c.trim());
    const vars = [...names!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!);
    // A row of several variables lists one default per variable, or one shared by all.
    const parts = defaults!.split(', ');
    vars.forEach((v, i) => {
      assert.ok(!out.has(v), `${v} is listed once`);
      out.set(v, parts.length === vars.length ? parts[i]! : defaults!);
    });
  }
  return out;
}

describe('config: docs/configuration.md documents every setting', () => {
  const documented = documentedDefaults();

  it('lists every setting, and only settings', () => {
    assert.deepEqual([...documented.keys()].sort(), [...CONFIG_KEYS].sort());
  });

  for (const name of CONFIG_KEYS)
    it(`shows the default of ${name}`, () => {
      const expected = shownDefaultOf(name as SettingName);
      const cell = documented.get(name);
      // A cell may add a note in parentheses, e.g. "– (local stack: generated)".
      assert.ok(
        cell === expected || cell?.startsWith(`${expected} (`),
        `${name}: docs/configuration.md shows ${JSON.stringify(cell)}, the settings table ${JSON.stringify(expected)}`,
      );
    });
});

describe('config: the settings table', () => {
  it('parses every default (loadConfig with nothing set succeeds)', () => {
    assert.doesNotThrow(() => loadConfig({ ONCEFLOW_ENCRYPTION: 'off' }));
  });

  it('keeps every setting marked secret out of redactConfig', () => {
    const secrets: Record<string, string> = {
      TEMPORAL_API_KEY: 'secret-api-key',
      KAFKA_SASL_PASSWORD: 'secret-sasl',
      DATABASE_URL: 'postgres://app:secret-pg@db.internal:5432/onceflow',
      PROVIDERS_ADMIN_TOKEN: 'secret-admin-token',
      ONCEFLOW_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
      CODEC_SERVER_TOKEN: 'secret-codec-token',
      ONCEFLOW_SEARCH_HMAC_KEY: Buffer.alloc(16, 2).toString('base64'),
      SCHEMA_REGISTRY_PASSWORD: 'secret-registry-password',
    };
    // The registry takes a password or a bearer token, never both: the token in a second load.
    const bearer = { SCHEMA_REGISTRY_BEARER_TOKEN: 'secret-registry-token' };
    const marked = Object.entries(SETTINGS)
      .filter(([, spec]) => 'secret' in spec && spec.secret)
      .map(([name]) => name);
    assert.deepEqual(
      marked.sort(),
      [...Object.keys(secrets), ...Object.keys(bearer)].sort(),
      'this test covers every secret',
    );
    const registry = { SCHEMA_REGISTRY_URL: 'https://registry.internal' };
    const text = JSON.stringify([
      redactConfig(
        loadConfig({
          ...secrets,
          ...registry,
          SCHEMA_REGISTRY_USERNAME: 'svc',
          KAFKA_SSL: 'true',
          KAFKA_SASL_MECHANISM: 'plain',
          KAFKA_SASL_USERNAME: 'svc',
        }),
      ),
      redactConfig(loadConfig({ ...registry, ...bearer })),
    ]);
    for (const [name, value] of Object.entries({ ...secrets, ...bearer })) {
      const secret = name === 'DATABASE_URL' ? 'secret-pg' : value.replace(/^k1:/, '');
      assert.ok(!text.includes(secret), `${name} must not appear`);
    }
  });
});
