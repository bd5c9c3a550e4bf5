import type { Priority } from '@temporalio/common';
import { boundKeyword, MAX_FAIRNESS_KEY_BYTES } from '../events/temporal-limits';

/**
 * Where a run's event came from: `live` (the bridge reading its topics as they are written),
 * `replay` (an operator's `dlq replay`), `backfill` (a bridge in BRIDGE_MODE=backfill
 * re-reading a topic from an earlier offset), `bulk-retry` (an operator's `retry --all`).
 */
export type RunOrigin = 'live' | 'replay' | 'backfill' | 'bulk-retry';

/**
 * Temporal's priority keys (1 first … 5 last; a run without one gets 3): live events go
 * ahead of everything else on the task queues, replays, backfills and bulk retries behind
 * every live one (Temporal dispatches a queue's lower keys first, then fairly across tenants
 * within a key). Both fit the server's default of five levels (`matching.priorityLevels`).
 */
export const PRIORITY_KEY: Readonly<Record<RunOrigin, number>> = {
  live: 2,
  replay: 4,
  backfill: 4,
  'bulk-retry': 4,
};

/** A tenant as Temporal's fairness key: at most 64 bytes, a longer one a head, `~` and a hash. */
export function fairnessKeyOf(tenant: string): string {
  return boundKeyword(tenant, MAX_FAIRNESS_KEY_BYTES, MAX_FAIRNESS_KEY_BYTES);
}

/**
 * The priority a run starts with: its origin's key and its tenant as the fairness key (none:
 * the runs without a tenant share Temporal's one unnamed key). The weight is not set here:
 * TENANT_WEIGHTS overrides it on the task queues (src/worker/task-queue-config.ts), the
 * one place Temporal lets a weight change for tasks already queued.
 */
export function priorityOf(origin: RunOrigin, tenant?: string): Priority {
  return {
    priorityKey: PRIORITY_KEY[origin],
    ...(tenant ? { fairnessKey: fairnessKeyOf(tenant) } : {}),
  };
}

/** What Temporal gives a run started without a priority key (the middle of its five). */
export const DEFAULT_PRIORITY_KEY = 3;

/**
 * A run's priority as Temporal reports it (describe), in one line for `show`:
 * `2 (live) · tenant acme`, `4 (behind live)`, `3 (Temporal's default) · no tenant`.
 */
export function describePriority(priority: Priority | undefined): string {
  const key = priority?.priorityKey || DEFAULT_PRIORITY_KEY;
  const origin =
    key === PRIORITY_KEY.live
      ? 'live'
      : key === PRIORITY_KEY.replay
        ? 'behind live: a replay, backfill or bulk retry'
        : key === DEFAULT_PRIORITY_KEY
          ? "Temporal's default"
          : 'set elsewhere';
  const tenant = priority?.fairnessKey ? `tenant ${priority.fairnessKey}` : 'no tenant';
  return `${key} (${origin}) · ${tenant}`;
}
