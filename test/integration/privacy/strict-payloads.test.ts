import { strict as assert } from 'node:assert';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Config } from '../../../src/config';
import { waitFor } from '../../../src/util/wait';
import { createWorker } from '../../../src/worker/create-worker';
import { DOMAINS } from '../../../src/domains';
import { orderFulfillment } from '../../../src/domains/orders/workflows';
import type { OrderResult } from '../../../src/domains/orders/workflows/order-definitions';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { testConfig, uniqueName } from '../../support/services';
import { workflowBundle } from '../../support/workflow-bundle';

/**
 * ONCEFLOW_ENCRYPTION_STRICT on the real stack: a worker in strict mode completes orders
 * started through the encrypting client, and acts on nothing a client without the key wrote
 * (here: an OrderPlaced input sent in clear, as anyone who reaches Temporal's gRPC can).
 */
describe('strict payload encryption (issue 23, real Temporal)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection };
  let connection: Connection;
  let plainClient: Client;
  let taskQueue: string;
  const started: string[] = [];

  before(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
    const base = testConfig();
    const strict: Config = { ...base, encryption: { ...base.encryption, strict: true } };
    taskQueue = uniqueName('strict-tq');
    const workerConnection = await NativeConnection.connect({ address: base.temporal.address });
    const w = await createWorker({
      domains: DOMAINS,
      connection: workerConnection,
      config: strict,
      deps: { pool: env.db.pool, providers: { url: env.providers.url, timeoutMs: 5000 } },
      taskQueue,
      workflowBundle: await workflowBundle(),
    });
    worker = { worker: w, running: w.run(), connection: workerConnection };
    connection = await Connection.connect({ address: base.temporal.address });
    // The SDK's default converter: JSON in clear, no codec, no key.
    plainClient = new Client({ connection, namespace: base.temporal.namespace });
  });
  after(async () => {
    await Promise.all(
      started.map((id) =>
        env.client.workflow
          .getHandle(id)
          .terminate('test cleanup')
          .catch(() => 0),
      ),
    );
    worker?.worker.shutdown();
    await worker?.running;
    await worker?.connection.close();
    await connection?.close();
    await env?.close();
  });

  it('completes an order whose input was encrypted', async () => {
    const sku = await env.seedStock(10);
    const order = env.newOrder(sku);
    const workflowId = uniqueName('wf-strict-ok');
    started.push(workflowId);
    const handle = await env.client.workflow.start(orderFulfillment, {
      taskQueue,
      workflowId,
      args: [eventInputOf('OrderPlaced', order.orderId, order)],
    });
    const result = (await handle.result()) as OrderResult;
    assert.equal(result.outcome, 'completed');
  });

  it('refuses an input sent in clear: the workflow task fails, nothing is reserved or charged', async () => {
    const sku = await env.seedStock(10);
    const order = env.newOrder(sku);
    const workflowId = uniqueName('wf-strict-plain');
    started.push(workflowId);
    await plainClient.workflow.start('orderFulfillment', {
      taskQueue,
      workflowId,
      args: [eventInputOf('OrderPlaced', order.orderId, order)],
    });
    const failure = await waitFor(
      async () => {
        const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
        const failed = history.events?.find((e) => e.workflowTaskFailedEventAttributes);
        return failed?.workflowTaskFailedEventAttributes?.failure?.message ?? undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'a failed workflow task' },
    );
    assert.match(failure, /not encrypted/);
    const described = await env.client.workflow.getHandle(workflowId).describe();
    assert.equal(described.status.name, 'RUNNING', 'the run never got past its first task');
    assert.equal(await env.stockOf(sku), 10, 'nothing reserved');
    const ledger = await env.ledger(order.orderId);
    assert.deepEqual([ledger.charges.length, ledger.emails.length], [0, 0]);
  });
});
