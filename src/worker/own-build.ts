import type pg from 'pg';
import { storeBuild, type BuildRefusal } from '../db/workflow-build-store';

/** Options of storeOwnBuild. */
export interface OwnBuildOptions {
  pool: pg.Pool;
  buildId: string;
  /** The build's bundle (its hash is buildId). */
  code: string;
  log: { info(o: object, m: string): void; error(o: object, m: string): void };
  /** Pause after a failed attempt (the database down: a failover). Default: 5 000 ms. */
  retryMs?: number;
  /** Pause after finding another code under this build's ID. Default: 60 000 ms. */
  conflictRetryMs?: number;
}

/**
 * Stores this worker's build, so that its runs can be served after its own workers stopped.
 * A worker that starts while the database is down (a failover) stores it once the database
 * is back. Another code already stored under this build's ID (planted before this build ran)
 * is reported, never taken for this build's: `refusal()` says so (the worker's build report
 * and metric), an error is logged, and the store is tried again now and then (the row's
 * removal by the table's owner lets this build's own code in).
 */
export function storeOwnBuild(options: OwnBuildOptions) {
  const { pool, buildId, code, log } = options;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let refusal: BuildRefusal | undefined;
  const retry = (ms: number) => {
    if (!stopped) timer = setTimeout(() => void attempt(), ms).unref();
  };
  const attempt = () =>
    storeBuild(pool, buildId, code).then(
      (outcome) => {
        if (outcome.state !== 'conflict') {
          refusal = undefined;
          if (outcome.state === 'stored') log.info({ buildId }, 'build stored');
          return;
        }
        if (refusal?.reason !== outcome.reason)
          log.error(
            { buildId, kind: outcome.kind, reason: outcome.reason },
            "another code is stored under this build's ID: no worker will run it, so this build's runs are served only while its own workers run; remove the row as the table's owner (docs/deploying.md, \"A build whose stored code is refused\")",
          );
        refusal = { kind: outcome.kind, reason: outcome.reason };
        retry(options.conflictRetryMs ?? 60_000);
      },
      (err: unknown) => {
        log.error({ err, buildId }, 'storing the build failed; retrying');
        retry(options.retryMs ?? 5_000);
      },
    );
  return {
    start: () => void attempt(),
    /** Another code stored under this build's ID, as the last attempt found it. */
    refusal: (): BuildRefusal | undefined => refusal,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
