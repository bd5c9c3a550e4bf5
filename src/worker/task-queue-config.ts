import { temporal } from '@temporalio/proto';
import type { Config } from '../config';
import type { ProviderRateLimit } from '../config/fairness-settings';
import { fairnessKeyOf } from '../temporal/run-priority';
import { providerTaskQueue } from '../util/provider-queue';
import { pacedRate } from '../activities/provider-pace';

const { TaskQueueType } = temporal.api.enums.v1;
type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;
type RateLimitUpdate =
  temporal.api.workflowservice.v1.UpdateTaskQueueConfigRequest.RateLimitUpdate.$Properties;

/** Who changed a task queue's config, as Temporal records it (and `task-queue config get` shows). */
const IDENTITY = 'onceflow-worker';

/** What a worker sets on Temporal's task queues at start: one line each, for its log. */
export interface AppliedQueueConfig {
  taskQueue: string;
  type: 'workflow' | 'activity';
  /** The provider whose queue it is; none for the workflow's own queues. */
  provider?: string;
  /** The provider's limit over all tenants (calls in any second); undefined: none. */
  perSecond?: number;
  /** The provider's limit per tenant (weighted); undefined: none. */
  perTenant?: number;
  /** Tenants whose weight it set, and those whose earlier override it removed. */
  weights: number;
  unsetWeights: number;
}

/**
 * The rate Temporal is given for a provider's limit per tenant: half of it. Temporal's task
 * queue limiter lets an idle key spend a whole second's worth of its rate at once and then
 * holds the rate (its matching service's one-second burst, not configurable), so a key at
 * rate r can dispatch up to 2r calls within one second. At half the limit no second ever sees
 * more of a tenant's calls than its limit. (The limit over all tenants is paced exactly in the
 * activity's path instead: src/activities/provider-pace.ts, and Temporal holds it at that
 * pace's rate.)
 */
export function temporalRateOf(providerLimit: number): number {
  return providerLimit / 2;
}

/** A rate as Temporal's update: set it, or (undefined) remove the limit an earlier start set. */
function rateUpdate(limit: number | undefined, rate: number, what: string): RateLimitUpdate {
  return limit === undefined
    ? {}
    : {
        rateLimit: { requestsPerSecond: rate },
        reason: `onceflow PROVIDER_RATE_LIMITS ${what}: ${limit} calls in any second`,
      };
}

/**
 * Makes Temporal's task queues say what the settings say, at every worker start (idempotent,
 * so any number of workers may do it at once): PROVIDER_RATE_LIMITS on each provider's
 * activity task queue (the queue's rate, the pace's, and the default per fairness key, i.e.
 * per tenant, scaled by its weight), and TENANT_WEIGHTS as fairness weight overrides on the workflow's
 * queues and every provider's (Temporal keeps overrides per queue and type). A limit or a
 * weight the settings no longer name is removed: the settings are the only source. The
 * limit holds across all workers because Temporal's matching enforces it when it dispatches.
 */
export async function applyTaskQueueConfig(
  service: WorkflowService,
  options: {
    namespace: string;
    taskQueue: string;
    /** Every provider whose queue the worker polls. */
    providers: readonly string[];
    fairness: Config['fairness'];
  },
): Promise<AppliedQueueConfig[]> {
  const weights = Object.fromEntries(
    Object.entries(options.fairness.tenantWeights).map(([tenant, w]) => [fairnessKeyOf(tenant), w]),
  );
  const queues: Array<{ taskQueue: string; type: 'workflow' | 'activity'; provider?: string }> = [
    { taskQueue: options.taskQueue, type: 'workflow' },
    { taskQueue: options.taskQueue, type: 'activity' },
    ...options.providers.map((provider) => ({
      taskQueue: providerTaskQueue(options.taskQueue, provider),
      type: 'activity' as const,
      provider,
    })),
  ];
  const applied: AppliedQueueConfig[] = [];
  for (const queue of queues) {
    const taskQueueType =
      queue.type === 'workflow'
        ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW
        : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY;
    const current = await service.describeTaskQueue({
      namespace: options.namespace,
      taskQueue: { name: queue.taskQueue },
      taskQueueType,
      reportConfig: true,
    });
    const unset = Object.keys(current.config?.fairnessWeightOverrides ?? {}).filter(
      (key) => !(key in weights),
    );
    const limit: ProviderRateLimit | undefined =
      queue.provider === undefined
        ? undefined
        : options.fairness.providerRateLimits[queue.provider];
    await service.updateTaskQueueConfig({
      namespace: options.namespace,
      identity: IDENTITY,
      taskQueue: queue.taskQueue,
      taskQueueType,
      // Temporal refuses rate limits on workflow task queues; a provider's queue always has one
      // said (set or removed).
      ...(queue.provider !== undefined
        ? {
            // The pace's rate: matching holds the calls, the pace spreads its bursts out.
            updateQueueRateLimit: rateUpdate(
              limit?.perSecond,
              pacedRate(limit?.perSecond ?? 0, options.fairness.providerRateShare),
              queue.provider,
            ),
            updateFairnessKeyRateLimitDefault: rateUpdate(
              limit?.perTenant,
              temporalRateOf(limit?.perTenant ?? 0),
              `${queue.provider} per tenant`,
            ),
          }
        : {}),
      setFairnessWeightOverrides: weights,
      unsetFairnessWeightOverrides: unset,
    });
    applied.push({
      ...queue,
      ...(limit?.perSecond !== undefined ? { perSecond: limit.perSecond } : {}),
      ...(limit?.perTenant !== undefined ? { perTenant: limit.perTenant } : {}),
      weights: Object.keys(weights).length,
      unsetWeights: unset.length,
    });
  }
  return applied;
}
