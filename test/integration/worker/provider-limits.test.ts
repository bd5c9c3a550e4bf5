import { strict as assert } from 'node:assert';
import { temporal } from '@temporalio/proto';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { orderFulfillment } from '../../../src/domains/orders/workflows';
import { providerTaskQueue } from '../../../src/util/provider-queue';
import { waitFor } from '../../../src/util/wait';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';

const { TaskQueueType } = temporal.api.enums.v1;

/**
 * Provider rate limits and tenant weights held by Temporal: the worker sets them on Temporal's
 * task queues at start, and Temporal reports them (DescribeTaskQueue's config); a step runs on
 * its provider's queue with the run's priority inherited; a provider's 429 with Retry-After is
 * a wait, never a failure. Real Temporal, Postgres and sandbox providers.
 */
describe('fairness: provider limits and tenant weights on Temporal task queues (real stack)', function () {
  this.timeout(120_000);
  let env: OrderEnv;

  before(async () => {
    env = await createOrderEnv({
      transientRetryWindowMs: 60_000,
      transientRetryIntervalMs: 500,
      fairness: {
        providerRateLimits: { mail: { perSecond: 10, perTenant: 2 } },
        tenantWeights: { acme: 3 },
        providerRateShare: 0.95,
      },
    });
  });
  after(async () => {
    await env?.close();
  });

  const configOf = async (taskQueue: string, type: 'workflow' | 'activity') =>
    (
      await env.client.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue },
        taskQueueType:
          type === 'workflow'
            ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW
            : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        reportConfig: true,
      })
    ).config;

  it("the mail provider's queue carries its limit (10 and 2 per tenant in any second: Temporal's rates 9.5/s and 1/s); every queue the tenant weights", async () => {
    const mail = await configOf(providerTaskQueue(env.taskQueue, 'mail'), 'activity');
    // Temporal's rate is the pace's (the limit × PROVIDER_RATE_SHARE): the pace spreads its
    // one-second burst. Per tenant it is half the limit: its burst then stays within it.
    assert.equal(mail?.queueRateLimit?.rateLimit?.requestsPerSecond, 9.5);
    assert.equal(mail?.fairnessKeysRateLimitDefault?.rateLimit?.requestsPerSecond, 1);
    assert.deepEqual({ ...mail?.fairnessWeightOverrides }, { acme: 3 });
    const card = await configOf(providerTaskQueue(env.taskQueue, 'card'), 'activity');
    assert.equal(card?.queueRateLimit?.rateLimit ?? undefined, undefined, 'card has no limit');
    const workflows = await configOf(env.taskQueue, 'workflow');
    assert.deepEqual({ ...workflows?.fairnessWeightOverrides }, { acme: 3 });
  });

  it('a 429 with Retry-After is a wait: the email step waits on the mail queue with the run’s priority, then sends once', async () => {
    // Five 429s: more than the fast phase's four attempts, so the step shows as waiting.
    await env.setFaults({
      endpoints: { emails: { rateLimitedRate: 1, retryAfterSeconds: 1, limit: 5 } },
    });
    try {
      const order = env.newOrder(await env.seedStock(10));
      const handle = await env.client.workflow.start(orderFulfillment, {
        taskQueue: env.taskQueue,
        workflowId: deriveWorkflowId('OrderPlaced', versionIdentity(order.orderId, 1)),
        args: [eventInputOf('OrderPlaced', order.orderId, order)],
        priority: { priorityKey: 2, fairnessKey: 'acme' },
      });
      const waiting = await env.waitForStatus(
        handle,
        (s) => s.waiting?.step === 'email',
        'the email step waiting out the 429s',
      );
      assert.match(waiting.waiting!.cause, /ProviderRateLimitedError.*429/);
      const pending = await waitFor(
        async () =>
          (await handle.describe()).raw.pendingActivities?.find(
            (a) => a.activityType?.name === 'sendEmail',
          ),
        { timeoutMs: 10_000, intervalMs: 100, what: 'the pending email activity' },
      );
      assert.equal(
        pending.activityOptions?.taskQueue?.name,
        providerTaskQueue(env.taskQueue, 'mail'),
      );
      // Temporal keeps an activity's own priority (none: it inherits) and merges the run's in
      // when it dispatches the task; describe shows both halves of that rule.
      assert.ok(
        !pending.priority?.priorityKey && !pending.priority?.fairnessKey,
        'no own priority',
      );
      const run = await handle.describe();
      assert.deepEqual(
        { key: run.priority?.priorityKey, tenant: run.priority?.fairnessKey },
        { key: 2, tenant: 'acme' },
        'the run’s priority, which the activity inherits',
      );
      const done = await env.waitForStatus(handle, (s) => s.step === 'completed', 'completion');
      assert.equal(done.parked, undefined, 'never parked');
      assert.equal((await env.ledger(order.orderId)).emails.length, 1, 'mailed once');
    } finally {
      await env.setFaults({ endpoints: { emails: {} } });
    }
  });
});
