import { strict as assert } from 'node:assert';
import { Connection, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { waitFor } from '../../../src/util/wait';
import { TEMPORAL_LIMITS } from '../../../src/workflows/run-budget';
import { retryStepSignal, retryStepUpdate } from '../../../src/workflows/saga-status';
import { createSeamsEnv, type SeamsEnv } from '../../support/seams-env';
import { testConfig, uniqueName } from '../../support/services';
import { temporalCli } from '../../support/temporal-cli';

const EventType = temporal.api.enums.v1.EventType;
const MiB = 1024 * 1024;

/**
 * The run's history as Temporal describes it, and the workflow tasks that failed in it (read
 * through a connection that takes pages over gRPC's default 4 MB: these histories carry MBs).
 */
async function historyOf(h: WorkflowHandle, address: string) {
  const described = await h.describe();
  const connection = await Connection.connect({
    address,
    channelArgs: { 'grpc.max_receive_message_length': 128 * MiB },
  });
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  try {
    let token: Uint8Array | null | undefined;
    do {
      const page = await connection.workflowService.getWorkflowExecutionHistory({
        namespace: testConfig().temporal.namespace,
        execution: { workflowId: h.workflowId, runId: described.runId },
        maximumPageSize: 100,
        ...(token ? { nextPageToken: token } : {}),
      });
      events.push(...(page.history?.events ?? []));
      token = page.nextPageToken;
    } while (token?.length);
  } finally {
    await connection.close();
  }
  const failedTasks = events.filter(
    (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
  );
  return {
    length: described.historyLength,
    bytes: described.historySize ?? 0,
    failedTasks: failedTasks.map(
      (e) =>
        `${e.workflowTaskFailedEventAttributes?.cause}: ${e.workflowTaskFailedEventAttributes?.failure?.message}`,
    ),
  };
}

/** The run's close as Temporal's cancel leaves it: Canceled after its unwind. */
async function closedCanceled(h: WorkflowHandle): Promise<void> {
  const ended = await h.result().then(
    (result: unknown) => ({ result }),
    (err: unknown) => ({ err }),
  );
  assert.ok(
    'err' in ended &&
      ended.err instanceof WorkflowFailedError &&
      ended.err.cause instanceof CancelledFailure,
    `closed ${JSON.stringify(ended)}`,
  );
}

describe("a run near Temporal's limits (seams domain, real Temporal)", function () {
  this.timeout(600_000);
  let env: SeamsEnv;
  before(async () => {
    env = await createSeamsEnv();
  });
  after(async () => {
    await env?.close();
  });

  it('a 1,000-item fan-out past the budget, cancelled while parked, undoes exactly what started', async () => {
    const id = uniqueName('fan');
    const h = await env.start('fanout', { id, count: 1000 });
    const parked = await env.until(
      h,
      (s) => (s.parked?.error ?? '').startsWith('history-budget'),
      'an item parked by the budget',
    );
    // The items the budget let start all run (40 at a time) before the operator cancels.
    await waitFor(async () => ((await env.effectsOf(id)).length >= 900 ? true : undefined), {
      timeoutMs: 180_000,
      intervalMs: 500,
      what: 'the admitted items done',
    });
    await temporalCli(['workflow', 'cancel', '--workflow-id', h.workflowId], env.address);
    await closedCanceled(h);
    const effects = await env.effectsOf(id);
    const items = effects.filter((e) => e.startsWith('item:'));
    const undone = effects.filter((e) => e.startsWith('unitem:'));
    const calls = await env.callsOf(id);
    const started = new Set(calls.filter((c) => c.what === 'item').map((c) => c.key));
    const history = await historyOf(h, env.address);
    process.stdout.write(
      `      ${started.size} of 1000 items started, ${undone.length} undone; first parked ${parked.parked?.step}; history ${history.length} events, ${(history.bytes / MiB).toFixed(1)} MiB\n`,
    );
    assert.ok(started.size < 1000, 'the budget refused some');
    assert.equal(items.length, started.size, 'each started item acted once');
    assert.deepEqual(
      undone.map((e) => e.slice('unitem:'.length)).sort(),
      items.map((e) => e.slice('item:'.length)).sort(),
      'the undos are exactly the items that started',
    );
    assert.deepEqual(history.failedTasks, [], 'no workflow task failed');
  });

  it('a loop checkpoints, a large fan-out parks at the budget, operators push, and the unwind completes', async () => {
    const id = uniqueName('limits');
    const h = await env.start('limits', { id, count: 60 });
    await env.until(
      h,
      (s) => (s.checkpoints ?? 0) >= 1 && (s.parked?.error ?? '').startsWith('history-budget'),
      'labels parked by the budget in the run after the checkpoint',
      300_000,
    );
    const current = env.client.workflow.getHandle(h.workflowId);
    const atPark = await historyOf(current, env.address);
    // Operators retry one parked label after another until the run refuses: the refusal is an
    // update rejected unwritten.
    let taken = 0;
    for (;;) {
      const { parked: now } = await env.until(current, (s) => !!s.parked, 'a parked label');
      const before = (await current.describe()).historyLength;
      const refused = await current
        .executeUpdate(retryStepUpdate, { args: [{ by: 'ops', step: now!.step }] })
        .then(
          () => undefined,
          (e: Error) => e,
        );
      if (!refused) {
        taken++;
        continue;
      }
      assert.match(
        (refused as Error & { cause?: Error }).cause?.message ?? refused.message,
        /history-budget: another retry could leave no room/,
      );
      assert.equal(
        (await current.describe()).historyLength,
        before,
        'a rejected update writes nothing',
      );
      break;
    }
    // A runbook's signals keep coming (each written before the run sees it).
    for (let i = 0; i < 300; i++) await current.signal(retryStepSignal, { by: 'cron' });
    await temporalCli(['workflow', 'cancel', '--workflow-id', h.workflowId], env.address);
    await closedCanceled(current);
    const end = await historyOf(current, env.address);
    const effects = await env.effectsOf(id);
    const labels = effects.filter((e) => e.startsWith('label:')).length;
    const voids = effects.filter((e) => e.startsWith('void:')).length;
    process.stdout.write(
      `      at the park ${atPark.length} events, ${(atPark.bytes / MiB).toFixed(1)} MiB; ${taken} retries taken; closed at ${end.length} events, ${(end.bytes / MiB).toFixed(1)} MiB; ${labels} labels, ${voids} voids\n`,
    );
    assert.ok(end.bytes < TEMPORAL_LIMITS.bytes && end.length < TEMPORAL_LIMITS.events);
    assert.ok(labels > 0 && labels < 60, `${labels} labels`);
    assert.equal(voids, labels, 'every label made is voided');
    assert.ok(effects.includes('refund'), "the first run's pay is refunded by the last run");
    assert.deepEqual(end.failedTasks, [], 'no workflow task failed');
  });
});
