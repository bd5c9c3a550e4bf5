import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import type pg from 'pg';

/**
 * The workflow code of each build, table `workflow_builds` (migrations 0009, 0010): the only
 * code that queries it. Unqualified table name: the pool's search_path (DATABASE_SCHEMA) picks
 * the schema. A build is stored by the first worker that runs it and read back by a later
 * worker that serves the build's runs after its own workers stopped
 * (src/worker/build-drains.ts). Nothing read from it runs unverified: a build is its hash.
 */

/**
 * The build ID of a workflow bundle: the full SHA-256 of its code, 64 hex digits (the same
 * code is the same build, and a stored bundle is checked against it before it runs).
 */
export function buildIdOf(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

/** A build ID this version of onceflow can verify: a full SHA-256. */
const VERIFIABLE_BUILD_ID = /^[0-9a-f]{64}$/;

/**
 * The @temporalio/workflow this process bundles and hosts. A bundle holds the workflow side
 * of the SDK it was built with, and runs only on a host of the same version: the two halves
 * of an activation are not a stable interface between versions.
 */
export const WORKFLOW_SDK_VERSION = (
  JSON.parse(readFileSync(require.resolve('@temporalio/workflow/package.json'), 'utf8')) as {
    version: string;
  }
).version;

/**
 * Why a stored build is refused: its code is not what its ID says (`tampered`: changed,
 * planted or not a bundle), it was built with another SDK (`other-sdk`), or it was stored by
 * an earlier onceflow that recorded too little to verify it (`unverifiable`).
 */
export type BuildRefusal = { kind: 'tampered' | 'other-sdk' | 'unverifiable'; reason: string };

/** A build's code as read back: verified against its ID and SDK, absent, or refused and why. */
export type StoredBuild =
  | { state: 'verified'; code: string }
  | { state: 'missing' }
  | ({ state: 'refused' } & BuildRefusal);

/** What storing a build found: stored now, already stored (the same code), or another code. */
export type StoreOutcome =
  { state: 'stored' } | { state: 'present' } | ({ state: 'conflict' } & BuildRefusal);

/**
 * Stores a build's bundle (once: the same build ID is the same code). A row already under the
 * ID is verified: one holding other code (planted before this build ran) is reported as a
 * `conflict`, never taken for this build's; it cannot be replaced (the table is append-only)
 * and every worker refuses to run it.
 */
export async function storeBuild(
  pool: pg.Pool,
  buildId: string,
  code: string,
  sdkVersion = WORKFLOW_SDK_VERSION,
): Promise<StoreOutcome> {
  if (buildIdOf(code) !== buildId)
    throw new TypeError(`storeBuild: the code given for build ${buildId} is another build's`);
  if (!(await isBuildStored(pool, buildId))) {
    const { rowCount } = await pool.query(
      `INSERT INTO workflow_builds (build_id, code_gzip, sdk_version) VALUES ($1, $2, $3)
       ON CONFLICT (build_id) DO NOTHING`,
      [buildId, gzipSync(code), sdkVersion],
    );
    if (rowCount === 1) return { state: 'stored' };
  }
  const stored = await loadBuild(pool, buildId, sdkVersion);
  if (stored.state === 'verified') return { state: 'present' };
  if (stored.state === 'refused')
    return { state: 'conflict', kind: stored.kind, reason: stored.reason };
  return { state: 'conflict', kind: 'tampered', reason: 'its row vanished while it was read' };
}

/** Whether a row is stored under the build ID (without reading or verifying the code). */
export async function isBuildStored(pool: pg.Pool, buildId: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM workflow_builds WHERE build_id = $1', [
    buildId,
  ]);
  return (rowCount ?? 0) > 0;
}

/**
 * A build's bundle, verified: its code must hash to its build ID and have been built with this
 * host's SDK (`hostSdk`), else it is refused with the reason; `missing` when no worker of it
 * ever stored it.
 */
export async function loadBuild(
  pool: pg.Pool,
  buildId: string,
  hostSdk = WORKFLOW_SDK_VERSION,
): Promise<StoredBuild> {
  const { rows } = await pool.query<{ code_gzip: Buffer; sdk_version: string | null }>(
    'SELECT code_gzip, sdk_version FROM workflow_builds WHERE build_id = $1',
    [buildId],
  );
  const row = rows[0];
  if (!row) return { state: 'missing' };
  if (!VERIFIABLE_BUILD_ID.test(buildId))
    return refused(
      'unverifiable',
      'its build ID is not a full SHA-256: it was stored by an earlier onceflow, whose shortened build IDs cannot be verified',
    );
  let code: string;
  try {
    code = gunzipSync(row.code_gzip).toString('utf8');
  } catch (err) {
    return refused(
      'tampered',
      `its stored code is not gzip (${(err as Error).message}): the row was written by something other than a worker`,
    );
  }
  const actual = buildIdOf(code);
  if (actual !== buildId)
    return refused(
      'tampered',
      `its stored code hashes to ${actual}, not to its build ID: the row was changed or planted, not stored by a worker of this build`,
    );
  if (row.sdk_version === null)
    return refused(
      'unverifiable',
      'it was stored without the @temporalio/workflow version it was built with',
    );
  if (row.sdk_version !== hostSdk)
    return refused(
      'other-sdk',
      `it was built with @temporalio/workflow ${row.sdk_version} and this process hosts ${hostSdk}: a bundle runs only on the SDK it was built with`,
    );
  return { state: 'verified', code };
}

function refused(kind: BuildRefusal['kind'], reason: string): StoredBuild {
  return { state: 'refused', kind, reason };
}

/** A stored build, without its code. */
export interface StoredBuildRow {
  buildId: string;
  storedAt: Date;
  /** The gzipped bundle's size. */
  bytes: number;
}

/** Every stored build, newest first. */
export async function listStoredBuilds(pool: pg.Pool): Promise<StoredBuildRow[]> {
  const { rows } = await pool.query<{ build_id: string; stored_at: Date; bytes: number }>(
    `SELECT build_id, stored_at, octet_length(code_gzip) AS bytes FROM workflow_builds
      ORDER BY stored_at DESC, build_id`,
  );
  return rows.map((r) => ({ buildId: r.build_id, storedAt: r.stored_at, bytes: Number(r.bytes) }));
}

/**
 * Removes stored builds, in one transaction that says so (migration 0012): only the table's
 * owner may, and only builds no run can need (decided by the caller: `onceflow builds prune`).
 * Returns how many rows went.
 */
export async function removeBuilds(pool: pg.Pool, buildIds: readonly string[]): Promise<number> {
  if (buildIds.length === 0) return 0;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SET LOCAL onceflow.prune_builds = 'on'");
    const { rowCount } = await client.query(
      'DELETE FROM workflow_builds WHERE build_id = ANY($1::text[])',
      [buildIds],
    );
    await client.query('COMMIT');
    return rowCount ?? 0;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
