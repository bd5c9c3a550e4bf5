import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Connection, type Client } from '@temporalio/client';
import { stackPaths } from '../../../harness/stack/paths';
import { pickAnyPort } from '../../../harness/stack/ports';
import { SEARCH_ATTRIBUTES } from '../../../harness/stack/temporal';
import { DEFAULT_ROUTES } from '../../../src/domains';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { buildEventMessage } from '../../../src/events/event-message';
import { translateMessage } from '../../../src/events/translate';
import { startOrDeduplicate } from '../../../src/kafka-bridge/workflow-starter';
import { createClient } from '../../../src/temporal/connection';
import { waitFor } from '../../../src/util/wait';
import {
  checkFairness,
  FAIRNESS_OFF_MESSAGE,
  probeFairness,
} from '../../../src/worker/fairness-check';
import { testConfig, uniqueName } from '../../support/services';

/** A log that keeps its lines. */
function capturingLog() {
  const lines: Array<{ level: 'info' | 'warn'; fields: object; message: string }> = [];
  return {
    lines,
    info: (fields: object, message: string) => lines.push({ level: 'info', fields, message }),
    warn: (fields: object, message: string) => lines.push({ level: 'warn', fields, message }),
  };
}

/**
 * Whether Temporal dispatches tenants fairly, as the worker finds out at start: the stack's
 * Temporal (fairness on) answers `fair`; a dev server of the same release with its default
 * (fairness off) answers first in, first out, the worker says so once with the fix, and the
 * bridge's starts with a fairness key still start runs. Both servers run one partition per
 * queue, as the stack does.
 */
describe('fairness: a Temporal without fairness is told apart at start, and runs still start (real Temporal)', function () {
  this.timeout(120_000);
  const config = testConfig();
  let server: ChildProcess | undefined;
  let connection: Connection;
  let client: Client;
  let address: string;

  before(async () => {
    const port = await pickAnyPort(new Set());
    address = `127.0.0.1:${port}`;
    server = spawn(
      join(stackPaths().bin, 'temporal'),
      [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--headless',
        '--log-level',
        'error',
        '--dynamic-config-value',
        'matching.numTaskqueueReadPartitions=1',
        '--dynamic-config-value',
        'matching.numTaskqueueWritePartitions=1',
        ...SEARCH_ATTRIBUTES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
      ],
      { stdio: 'ignore' },
    );
    connection = await waitFor(
      async () => {
        const c = await Connection.connect({ address, connectTimeout: 1000 });
        await c.workflowService.getSystemInfo({});
        return c;
      },
      { timeoutMs: 60_000, intervalMs: 300, what: `a dev server without fairness on ${address}` },
    );
    client = createClient(connection, config);
  });
  after(async () => {
    await connection?.close();
    server?.kill('SIGTERM');
  });

  it("the stack's Temporal dispatches a later tenant's first task before an earlier tenant's second", async () => {
    const stack = await Connection.connect({ address: config.temporal.address });
    try {
      const verdict = await probeFairness(stack.workflowService, {
        namespace: config.temporal.namespace,
        taskQueue: uniqueName('probe-on'),
        withDeadline: (deadline, call) => stack.withDeadline(deadline, call),
      });
      assert.equal(verdict, 'fair');
    } finally {
      await stack.close();
    }
  });

  it('without fairness: one clear start-up line naming the fix, and a start with a fairness key still starts its run', async () => {
    const log = capturingLog();
    const verdict = await checkFairness(connection.workflowService, {
      namespace: 'default',
      taskQueue: uniqueName('probe-off'),
      withDeadline: (deadline, call) => connection.withDeadline(deadline, call),
      log,
    });
    assert.equal(verdict, 'first-in-first-out');
    assert.deepEqual(
      log.lines.map((l) => [l.level, l.message]),
      [['warn', FAIRNESS_OFF_MESSAGE]],
    );
    assert.match(FAIRNESS_OFF_MESSAGE, /matching\.enableFairness=true/);

    const orderId = uniqueName('order');
    const record = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { merchantId: 'acme' }),
    });
    const cmd = translateMessage(
      { key: Buffer.from(record.key), value: Buffer.from(record.value), headers: record.headers },
      DEFAULT_ROUTES,
      { maxBytes: 1_048_576 },
    );
    assert.equal(cmd.kind, 'start', JSON.stringify(cmd));
    if (cmd.kind !== 'start') return;
    const outcome = await startOrDeduplicate(client, uniqueName('tq'), cmd, {
      topic: 'orders',
      partition: 0,
      offset: '0',
    });
    assert.equal(outcome.kind, 'started');
    const run = await client.workflow.getHandle(cmd.workflowId).describe();
    assert.equal(run.priority?.fairnessKey, 'acme', 'the key is kept, only not honoured');
    await client.workflow.getHandle(cmd.workflowId).terminate('test done');
  });
});
