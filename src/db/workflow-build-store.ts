import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type pg from 'pg';

/**
 * The workflow code of each build, table `workflow_builds` (migration 0009): the only code
 * that queries it. Unqualified table name: the pool's search_path (DATABASE_SCHEMA) picks the
 * schema. A build is stored by the first worker that runs it and read back by a later worker
 * that serves the build's runs after its own workers stopped (src/worker/build-drains.ts).
 */

/**
 * The build ID of a workflow bundle: the full SHA-256 of its code, 64 hex digits (the same
 * code is the same build, and a stored bundle is checked against it before it runs).
 */
export function buildIdOf(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

/** Stores a build's bundle (once: the same build ID is the same code). */
export async function storeBuild(pool: pg.Pool, buildId: string, code: string): Promise<void> {
  if (await isBuildStored(pool, buildId)) return;
  await pool.query(
    `INSERT INTO workflow_builds (build_id, code_gzip) VALUES ($1, $2)
     ON CONFLICT (build_id) DO NOTHING`,
    [buildId, gzipSync(code)],
  );
}

/** Whether a worker of the build stored its code (without reading the code). */
export async function isBuildStored(pool: pg.Pool, buildId: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM workflow_builds WHERE build_id = $1', [
    buildId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** A build's bundle, or undefined when no worker of it ever stored it. */
export async function loadBuild(pool: pg.Pool, buildId: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ code_gzip: Buffer }>(
    'SELECT code_gzip FROM workflow_builds WHERE build_id = $1',
    [buildId],
  );
  return rows[0] && gunzipSync(rows[0].code_gzip).toString('utf8');
}

/** Every stored build, oldest first (size compressed, not the code). */
export async function listBuilds(
  pool: pg.Pool,
): Promise<Array<{ buildId: string; storedAt: string; bytes: number }>> {
  const { rows } = await pool.query<{ build_id: string; stored_at: Date; bytes: number }>(
    'SELECT build_id, stored_at, octet_length(code_gzip) AS bytes FROM workflow_builds ORDER BY stored_at',
  );
  return rows.map((r) => ({
    buildId: r.build_id,
    storedAt: r.stored_at.toISOString(),
    bytes: Number(r.bytes),
  }));
}
