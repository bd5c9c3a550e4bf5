import type pg from 'pg';
import { createSystemActivities } from './system';

/** What activities need from the outside world; injected so tests can pass their own. */
export interface ActivityDeps {
  pool: pg.Pool;
}

/**
 * All activities, built from their dependencies. One file per external system; workflows
 * derive their proxy types from `ReturnType<typeof createActivities>`.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
