import type { WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config';
import type { Domain } from '../engine/define-domain';

/**
 * True when tenants share the workers: a route of the worker's domains names its tenant, or
 * TENANT_WEIGHTS is set. Then Temporal's fairness decides whose task goes next, and what
 * bypasses it costs a quiet tenant.
 */
export function tenantsConfigured(config: Pick<Config, 'fairness'>, domains: readonly Domain[]) {
  return (
    Object.keys(config.fairness.tenantWeights).length > 0 ||
    domains.some((d) => d.routes.some((r) => r.tenant !== undefined))
  );
}

/**
 * What the worker sets on the SDK so priority and fairness decide dispatch:
 *
 * - eager activity dispatch (WORKER_EAGER_ACTIVITIES): the server hands a run's next activity
 *   to the worker that completed its workflow task without going through matching, so
 *   neither the priority key nor the fairness key orders it (the history service's
 *   `bypassActivityTaskGeneration`). `auto` turns it off when tenants are configured, at the
 *   cost of one matching round trip per activity on the workflow's own queue (a provider's
 *   activities run on their own queue and are never eager).
 * - sticky execution (WORKER_STICKY_QUEUE, WORKER_STICKY_QUEUE_TIMEOUT): a worker's sticky
 *   queue orders by priority but not by fairness (Temporal's StickyPartition does not
 *   support it), so a flood's workflow tasks queue first-in-first-out there. It stays on by
 *   default: off, every workflow task replays its run's whole history, which costs more
 *   than the FIFO the open-run caps already bound (the bridge keeps at most
 *   BRIDGE_MAX_OPEN_RUNS_PER_TENANT of a tenant's runs open); the timeout moves a task that
 *   waited that long to the normal, fair queue.
 */
export function fairnessOptionsOf(
  config: Pick<Config, 'fairness' | 'worker'>,
  domains: readonly Domain[],
): Pick<
  WorkerOptions,
  | 'maxEagerActivityReservationsPerWorkflowTask'
  | 'maxCachedWorkflows'
  | 'stickyQueueScheduleToStartTimeout'
> {
  const { eagerActivities, stickyQueue, stickyQueueTimeoutMs, maxCachedWorkflows } = config.worker;
  const eager =
    eagerActivities === 'auto' ? !tenantsConfigured(config, domains) : eagerActivities === 'on';
  return {
    // 3 is the SDK's default; 0 turns eager dispatch off.
    maxEagerActivityReservationsPerWorkflowTask: eager ? 3 : 0,
    // No cache is the SDK's way to run without a sticky queue.
    maxCachedWorkflows: stickyQueue ? maxCachedWorkflows : 0,
    stickyQueueScheduleToStartTimeout: stickyQueueTimeoutMs,
  };
}
