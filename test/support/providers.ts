import type pg from 'pg';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import {
  startProviders,
  type RunningProviders,
  type StartProvidersOptions,
} from '../../harness/sandbox/server';
import { randomBytes } from 'node:crypto';
import { adminHeaders } from '../../src/reconcile/provider-ledger';
import { testConfig, uniqueName } from './services';
import { testPinoLogger } from './test-log';

/**
 * The admin token of every sandbox a test starts (the admin API is closed without one): the
 * stack's, so CLI subprocesses that inherit the environment send the same one.
 */
export const TEST_ADMIN_TOKEN =
  process.env.PROVIDERS_ADMIN_TOKEN || `test-admin-${randomBytes(12).toString('hex')}`;
const ADMIN = adminHeaders(TEST_ADMIN_TOKEN);

export interface TestDatabase {
  schema: string;
  /** A pool whose search_path is the test's own schema. */
  pool: pg.Pool;
}

/** A fresh, migrated schema of its own and a pool pointed at it. */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const schema = uniqueName(prefix);
  const pool = createPool(testConfig().database, { schema });
  await migrate(pool, { schema });
  return { schema, pool };
}

/**
 * The sandbox providers on an ephemeral port, backed by the given test schema; what
 * `npm run providers` would log of a failed request goes to the test log.
 */
export function startTestProviders(
  db: TestDatabase,
  options: Omit<StartProvidersOptions, 'pool'> = {},
): Promise<RunningProviders> {
  const log = testPinoLogger('providers');
  return startProviders({
    reapIntervalMs: 0,
    adminToken: TEST_ADMIN_TOKEN,
    onError: (err) => log.error({ err }, 'provider request failed'),
    ...options,
    pool: db.pool,
  });
}

/** POSTs JSON with an Idempotency-Key; returns status, body and the replay header. */
export async function postJson(
  url: string,
  key: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown>; replayed: boolean }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    replayed: res.headers.get('idempotent-replayed') === 'true',
  };
}

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: ADMIN });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return (await res.json()) as T;
}

export async function setFaults(providers: RunningProviders, settings: unknown): Promise<void> {
  const res = await fetch(`${providers.url}/admin/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...ADMIN },
    body: JSON.stringify(settings),
  });
  if (!res.ok) throw new Error(`PUT /admin/faults: ${res.status} ${await res.text()}`);
}
