import type { Migration } from './types';

/**
 * A provider's pace: one row per provider that has a limit (PROVIDER_RATE_LIMITS), holding
 * the earliest moment its next call may be made, on Postgres' clock. Every worker claims its
 * call's moment by moving it on one interval in a single statement under the row's lock, so
 * the calls of all workers are spaced at least that interval apart: at most the limit in any
 * sliding second, with no burst (src/activities/provider-pace.ts). One row per provider, so
 * the table never grows with the calls.
 */
export const providerPace: Migration = {
  version: 13,
  name: 'provider-pace',
  up: `
    CREATE TABLE provider_pace (
      provider text        PRIMARY KEY,
      next_at  timestamptz NOT NULL
    );
  `,
};
