import { temporal } from '@temporalio/proto';
import type { Config } from '../config';
import type { ProviderRateLimit } from '../config/fairness-settings';
import { fairnessKeyOf } from '../temporal/run-priority';
import { providerTaskQueue } from '../util/provider-queue';

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
  /** Calls per second over all tenants; undefined: no limit (any earlier one removed). */
  perSecond?: number;
  /** Calls per second per tenant (weighted); undefined: none. */
  perTenant?: number;
  /** Tenants whose weight it set, and those whose earlier override it removed. */
  weights: number;
  unsetWeights: number;
}

/** A rate as Temporal's update: set it, or (undefined) remove the limit an earlier start set. */
function rateUpdate(rate: number | undefined, what: string): RateLimitUpdate {
  return rate === undefined
    ? {}
    : { rateLimit: { requestsPerSecond: rate }, reason: `onceflow PROVIDER_RATE_LIMITS ${what}` };
}

/**
 * Makes Temporal's task queues say what the settings say, at every worker start (idempotent,
 * so any number of workers may do it at once): PROVIDER_RATE_LIMITS on each provider's
 * activity task queue (the queue's rate and the default per fairness key, i.e. per tenant,
 * scaled by its weight), and TENANT_WEIGHTS as fairness weight overrides on the workflow's
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
            updateQueueRateLimit: rateUpdate(limit?.perSecond, queue.provider),
            updateFairnessKeyRateLimitDefault: rateUpdate(
              limit?.perTenant,
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
