import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../stack/processes';

/** Another chaos run holds this stack: two runs would restart Kafka and Postgres under each other. */
export class ChaosLockError extends Error {
  override readonly name = 'ChaosLockError';
  constructor(
    readonly file: string,
    readonly holderPid: number,
  ) {
    super(
      `another chaos run (pid ${holderPid}) is injecting faults into this stack; wait for it to end or stop it (lock: ${file})`,
    );
  }
}

/**
 * Takes the stack's chaos lock (a pid file in the stack folder) and returns its release. A lock
 * left by a run that was killed (its pid is gone) is taken over, not reported.
 */
export function acquireChaosLock(stackRoot: string): () => void {
  const file = join(stackRoot, 'chaos.lock');
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const holder = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder))
      throw new ChaosLockError(file, holder);
    writeFileSync(file, String(process.pid));
  }
  return () => {
    // Only our own lock: a run that lost a race must not delete the winner's.
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // Already gone (the stack folder was removed): nothing to release.
    }
  };
}
