import { strict as assert } from 'node:assert';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { deleteRun } from '../../../../harness/chaos/forget';
import { orderCancellation, orderFulfillment } from '../../../../src/domains/orders/workflows';
import {
  cancelOrderSignal,
  retryStepSignal,
} from '../../../../src/domains/orders/workflows/order-definitions';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../../support/order-env';
import { dataConverterFor } from '../../../../src/temporal/data-converter';
import { testConfig, uniqueName } from '../../../support/services';
import { workflowBundle } from '../../../support/workflow-bundle';
import { encryptedPayloads, plainHistory } from '../../../../src/temporal/plain-history';
import { ENCRYPTED_ENCODING } from '../../../../src/temporal/encryption-codec';

/**
 * Recorded histories of every way an order can go (protobuf binary): the determinism guard.
 * A change to the order saga that changes a run's commands fails here: runs in flight finish
 * on the build they started on (docs/deploying.md), and this guard keeps a build's own
 * histories replaying (its sticky cache evicted, a worker restarted mid-run). Rewrite them with
 * `RECORD_HISTORIES=1 npm test -- test/integration/domains/orders/order-replay.test.ts` when a
 * change is meant to change the commands. Fixtures are written decoded (plainHistory): the
 * stack's dev key ring is its own, so an encrypted fixture would replay nowhere else.
 */
const FIXTURES = resolve(__dirname, '../../../fixtures/histories');

/** The current set, in the order the test records them (RECORD_HISTORIES writes these). */
const CURRENT = [
  'completed',
  'declined',
  'rejected',
  'cancelled',
  'duplicate',
  'order-conflict',
  'waited',
  'parked-retried',
  'cancellation',
  'reread-duplicate',
  'cancellation-compensated',
  'cancellation-settled',
  'reset-completed',
] as const;

/**
 * Every recorded history that must replay, as committed. The folder must hold exactly these:
 * a missing or emptied folder, a lost file, or a new file nobody listed fails the guard
 * (list a new fixture here when you record it).
 */
const EXPECTED_FIXTURES = [...CURRENT].map((name) => `${name}.pb`);

type History = temporal.api.history.v1.IHistory;

describe('order workflows replay deterministically (Worker.runReplayHistories)', () => {
  let env: OrderEnv;
  before(async () => {
    env = await createOrderEnv();
  });
  after(async () => {
    await env.close();
  });

  it('replays fresh histories of every outcome and the recorded fixtures', async () => {
    const recorded: Array<{ workflowId: string; history: History }> = [];
    const keep = async (workflowId: string) => {
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      recorded.push({ workflowId, history });
    };

    const sku = await env.seedStock(10);
    const happyOrder = env.newOrder(sku);
    const happy = await env.startOrder(happyOrder);
    await happy.result();
    await keep(happy.workflowId);

    const declined = await env.startOrder(env.newOrder(sku, { customerId: 'declined-replay' }));
    await declined.result();
    await keep(declined.workflowId);

    const big = env.newOrder(sku, {
      items: [{ sku, quantity: 99, unitPriceMinor: 1 }],
      totalMinor: 99,
    });
    const rejected = await env.startOrder(big);
    await rejected.result();
    await keep(rejected.workflowId);

    await env.setFaults({ endpoints: { emails: { latencyMs: 2000 } } });
    const cancelled = await env.startOrder(env.newOrder(sku));
    await env.waitForStatus(cancelled, (s) => s.step === 'emailing', 'the email step');
    await cancelled.signal(cancelOrderSignal, { reason: 'replay' });
    await cancelled.result();
    await keep(cancelled.workflowId);
    await env.setFaults({ endpoints: { emails: {} } });

    // A re-send of the happy order under another identity (duplicate), and one with other
    // data (order conflict): both end at the claim without acting.
    const reSend = async (fingerprint: string, outcome: string) => {
      const order = env.newOrder(sku, { orderId: happyOrder.orderId });
      const input = eventInputOf('OrderPlaced', order.orderId, order);
      const handle = await env.client.workflow.start(orderFulfillment, {
        taskQueue: env.taskQueue,
        workflowId: uniqueName(`OrderPlaced:${order.orderId}-resend`),
        args: [{ ...input, event: { ...input.event, fingerprint } }],
      });
      assert.equal((await handle.result()).outcome, outcome);
      await keep(handle.workflowId);
    };
    await reSend('test', 'duplicate');
    await reSend('other-payload', 'order-conflict');

    // A transient cause: one fast phase fails, the order waits (timer, memo), then completes.
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1, limit: 4 } } });
    const waited = await env.startOrder(env.newOrder(sku));
    assert.equal((await waited.result()).outcome, 'completed');
    await keep(waited.workflowId);
    // The (1 s test) window runs out: parked, then an operator retry with a recorded action.
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const parked = await env.startOrder(env.newOrder(sku));
    await env.waitForStatus(parked, (s) => s.step === 'needs_attention', 'parking');
    await env.setFaults({ endpoints: { emails: {} } });
    await parked.signal(retryStepSignal, { by: 'replay-test', reason: 'provider back' });
    assert.equal((await parked.result()).outcome, 'completed');
    await keep(parked.workflowId);

    const cancellationId = uniqueName('OrderCancelled:replay');
    await env.client.workflow.execute(orderCancellation, {
      taskQueue: env.taskQueue,
      workflowId: cancellationId,
      args: [eventInputOf('OrderCancelled', 'x', { orderId: 'x', reason: 'r' })],
    });
    await keep(cancellationId);

    // The claim outlives the run: the happy order's run deleted (retention) and its workflow
    // ID started again (a re-read) ends duplicate, owned by an earlier run of its own ID.
    const happyRunId = await deleteRun(env.client, happy.workflowId);
    const reread = await env.client.workflow.start(orderFulfillment, {
      taskQueue: env.taskQueue,
      workflowId: happy.workflowId,
      args: [eventInputOf('OrderPlaced', happyOrder.orderId, happyOrder)],
    });
    const rereadResult = await reread.result();
    assert.equal(rereadResult.outcome, 'duplicate');
    assert.equal(rereadResult.ownerRunId, happyRunId);
    await keep(happy.workflowId);
    // A cancellation of the completed order compensates without signalling (the claim says
    // it settled) and settles it refunded; another one then finds nothing left to undo.
    const cancelOf = async (outcome: string) => {
      const id = uniqueName(`OrderCancelled:${happyOrder.orderId}`);
      const result = await env.client.workflow.execute(orderCancellation, {
        taskQueue: env.taskQueue,
        workflowId: id,
        args: [
          eventInputOf('OrderCancelled', happyOrder.orderId, {
            orderId: happyOrder.orderId,
            reason: 'replay',
          }),
        ],
      });
      assert.equal(result.handledBy, outcome);
      await keep(id);
    };
    await cancelOf('compensated');
    await cancelOf('already-settled');
    // An operator's reset of a completed owner runs its steps again as the owner.
    const resetOrder = await env.startOrder(env.newOrder(sku));
    await resetOrder.result();
    const firstTask = (await resetOrder.fetchHistory()).events!.find(
      (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    )!;
    const { runId: resetRunId } = await env.client.workflowService.resetWorkflowExecution({
      namespace: env.client.options.namespace,
      workflowExecution: { workflowId: resetOrder.workflowId },
      reason: 'replay test',
      workflowTaskFinishEventId: firstTask.eventId,
      requestId: uniqueName('reset'),
    });
    const afterReset = env.client.workflow.getHandle(resetOrder.workflowId, resetRunId!);
    assert.equal(((await afterReset.result()) as { outcome: string }).outcome, 'completed');
    recorded.push({
      workflowId: resetOrder.workflowId,
      history: await afterReset.fetchHistory(),
    });

    assert.equal(recorded.length, CURRENT.length, 'one fresh history per current fixture name');
    const converter = dataConverterFor(testConfig());
    if (process.env.RECORD_HISTORIES) {
      // Plain text: an encrypted fixture replays only on the stack whose key wrote it.
      mkdirSync(FIXTURES, { recursive: true });
      for (const [i, r] of recorded.entries()) {
        const plain = await plainHistory(r.history, converter.payloadCodecs ?? []);
        writeFileSync(
          join(FIXTURES, `${CURRENT[i]}.pb`),
          temporal.api.history.v1.History.encode(plain).finish(),
        );
      }
    }
    // Throws on a missing folder: no fixtures is a failed guard, never an empty pass.
    const onDisk = readdirSync(FIXTURES).filter((f) => f.endsWith('.pb'));
    assert.deepEqual(
      [...onDisk].sort(),
      [...EXPECTED_FIXTURES].sort(),
      'the recorded histories on disk are the committed list',
    );
    const fixtures = onDisk.map((f) => {
      const history = temporal.api.history.v1.History.decode(readFileSync(join(FIXTURES, f)));
      // An empty or truncated file decodes to a history with no events, which proves nothing.
      assert.equal(
        history.events?.[0]?.eventType,
        temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
        `${f} starts with WorkflowExecutionStarted`,
      );
      assert.ok(history.events!.length >= 5, `${f} holds a whole run`);
      return { workflowId: `fixture-${f}`, history };
    });

    for (const f of fixtures) {
      assert.equal(encryptedPayloads(f.history, ENCRYPTED_ENCODING), 0, `${f.workflowId} is plain`);
    }
    const results: string[] = [];
    // Fresh histories hold encrypted payloads: replay decodes them with the same codec.
    const replays = Worker.runReplayHistories(
      { workflowBundle: await workflowBundle(), dataConverter: converter },
      [...recorded, ...fixtures],
    );
    for await (const r of replays) {
      assert.equal(r.error, undefined, `${r.workflowId}: ${String(r.error)}`);
      results.push(r.workflowId);
    }
    assert.deepEqual(
      [...results].sort(),
      [
        ...recorded.map((r) => r.workflowId),
        ...EXPECTED_FIXTURES.map((f) => `fixture-${f}`),
      ].sort(),
      'every fresh history and every committed fixture replayed',
    );
  });
});
