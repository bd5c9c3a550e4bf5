// The seams test domain's activities: every attempt is recorded (`calls`), every effect once
// under its key (`effects`), and a `faults` row per step name says how the step's calls fail:
// a business decline, a provider outage (transient, with its window and interval), or a hold
// (the attempt waits until the row changes, as a slow provider does), so a test on the real
// stack can force each interleaving of the run's seams.
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityDeps } from '../../../../src';
import type { TransientFailureDetails } from '../../../../src/activities/transient-failure';

export const SEAMS_TABLES = `
  CREATE TABLE IF NOT EXISTS calls (
    n serial PRIMARY KEY, key text NOT NULL, what text NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp());
  CREATE TABLE IF NOT EXISTS effects (key text PRIMARY KEY, what text NOT NULL);
  CREATE TABLE IF NOT EXISTS faults (
    what text PRIMARY KEY, mode text NOT NULL, window_ms int NOT NULL DEFAULT 60000,
    interval_ms int NOT NULL DEFAULT 1000);`;

/** How a step's calls fail: `decline`, `outage` (transient), `hold` (wait for a change). */
export type FaultMode = 'decline' | 'outage' | 'hold';

/** The business failure a `decline` fault throws. */
export const DECLINED = 'Declined';

export function createSeamActivities({ pool }: ActivityDeps) {
  const faultOf = async (what: string) =>
    (
      await pool.query<{ mode: FaultMode; window_ms: number; interval_ms: number }>(
        'SELECT mode, window_ms, interval_ms FROM faults WHERE what = $1',
        [what],
      )
    ).rows[0];
  /** One attempt of a step's call: recorded, then failed as its fault says, else done once. */
  async function attempt(key: string, what: string): Promise<{ id: string }> {
    await pool.query('INSERT INTO calls (key, what) VALUES ($1, $2)', [key, what]);
    let fault = await faultOf(what);
    // A slow provider: the attempt waits (at most 10 s) until the test changes its fault.
    for (let waited = 0; fault?.mode === 'hold' && waited < 10_000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      fault = await faultOf(what);
    }
    if (fault?.mode === 'decline')
      throw ApplicationFailure.create({
        type: DECLINED,
        message: `${what} declined`,
        nonRetryable: true,
      });
    if (fault?.mode === 'outage' || fault?.mode === 'hold') {
      const details: TransientFailureDetails = {
        transient: true,
        windowMs: fault.window_ms,
        intervalMs: fault.interval_ms,
        endpoint: `POST /${what}`,
        key,
      };
      throw ApplicationFailure.create({
        type: 'ProviderUnavailableError',
        message: `${what}: the provider answered 503`,
        details: [details],
      });
    }
    await pool.query('INSERT INTO effects (key, what) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      key,
      what,
    ]);
    return { id: `${what}@${key}` };
  }
  return {
    /** A forward step's call (its `what` names the step). */
    seamCall: (i: { key: string; what: string; item?: string }) => attempt(i.key, i.what),
    /** An undo. */
    seamUndo: (i: { key: string; what: string }) => attempt(i.key, i.what),
  };
}

export type SeamActivities = ReturnType<typeof createSeamActivities>;
