/**
 * The dev server's SQLite database, bounded: at stack start, when no stack is running, a
 * database grown past `ONCEFLOW_TEMPORAL_DB_MAX_MB` (default 256) is moved aside to
 * `temporal.previous.sqlite` (replacing an earlier one) and the server starts on an empty
 * file. The file never shrinks on its own, and a server that keeps a day of tests and benches
 * spends its one SQLite connection deleting yesterday's runs (the namespace's 24 h retention)
 * while it serves today's: the dev server's CPU per order grew from 38 to 50 ms as the file
 * reached 2.2 GB in two days, and its timer reads finally timed out. A week-old checkout thus
 * starts like a fresh one. Only at start, never under a running stack: the rotation drops the
 * dev server's runs and histories (still readable by starting `temporal server start-dev
 * --db-filename` on the previous file), which a running demo would lose mid-way.
 */
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StackSettingError } from './topology';

export const TEMPORAL_DB_MAX_SETTING = 'ONCEFLOW_TEMPORAL_DB_MAX_MB';
const DEFAULT_MAX_MB = 256;

/** SQLite's companions of a database file in WAL mode. */
const SUFFIXES = ['', '-wal', '-shm'];

/** The bound in bytes (`0`: every start is on an empty database); a bad value names the setting. */
export function temporalDbMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[TEMPORAL_DB_MAX_SETTING]?.trim();
  if (!raw) return DEFAULT_MAX_MB * 2 ** 20;
  const mb = Number(raw);
  if (!Number.isInteger(mb) || mb < 0)
    throw new StackSettingError(
      TEMPORAL_DB_MAX_SETTING,
      `must be a whole number of MiB, got ${raw}`,
    );
  return mb * 2 ** 20;
}

/** The database with its WAL and shared-memory files, in bytes (0 when there is none). */
export function temporalDbBytes(dbFile: string): number {
  return SUFFIXES.reduce(
    (sum, s) => sum + (existsSync(dbFile + s) ? statSync(dbFile + s).size : 0),
    0,
  );
}

/** Where a rotated database goes: `temporal.previous.sqlite` beside it. */
export function previousDbFile(dbFile: string): string {
  return join(dirname(dbFile), basename(dbFile).replace(/(\.sqlite)?$/, '.previous$1'));
}

/**
 * Moves the database aside when it is larger than the bound; call only when no stack runs
 * from this folder. Returns the size moved (0: kept).
 */
export function rotateTemporalDb(
  dbFile: string,
  maxBytes: number,
  log: (line: string) => void,
): number {
  const bytes = temporalDbBytes(dbFile);
  if (bytes === 0 || bytes <= maxBytes) return 0;
  const previous = previousDbFile(dbFile);
  for (const s of SUFFIXES) rmSync(previous + s, { force: true });
  for (const s of SUFFIXES) if (existsSync(dbFile + s)) renameSync(dbFile + s, previous + s);
  log(
    `Temporal's database was ${(bytes / 2 ** 20).toFixed(0)} MiB, over ${TEMPORAL_DB_MAX_SETTING}=${maxBytes / 2 ** 20}: ` +
      `moved to ${basename(previous)}; the dev server starts empty (the earlier runs are in that file)`,
  );
  return bytes;
}
