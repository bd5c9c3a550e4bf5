import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { waitFor } from '../../../src/util/wait';
import { createWorker } from '../../../src/worker/create-worker';
import { DOMAINS } from '../../../src/domains';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { runOps, startProviderGate, type ProviderGate } from '../../support/ops-cli';
import { testConfig, uniqueName } from '../../support/services';
import { workflowBundle } from '../../support/workflow-bundle';

/**
 * The bulk operator commands against the real stack: orders parked at charge by a payment
 * API that rejects every charge (400, a permanent cause), then retried or cancelled in one
 * batch; and orders whose charge keeps timing out, paused and resumed. Every selection is
 * narrowed by an order-ID prefix of its own, so other tests' orders in the shared
 * namespace are never touched.
 */
describe('ops CLI: bulk retry/cancel and pause/resume (real Temporal, batch operations)', function () {
  this.timeout(240_000);
  let env: OrderEnv;
  let gate: ProviderGate;
  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection };
  let cliEnv: Record<string, string>;
  let sku: string;
  const handles: WorkflowHandle[] = [];

  before(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
    gate = await startProviderGate(env.providers.url);
    const config = testConfig();
    const connection = await NativeConnection.connect({ address: config.temporal.address });
    // A held charge times out after 8 s: today's budget (6 attempts) then lasts about a
    // minute, room enough to pause it on a loaded machine before the order would park.
    const w = await createWorker({
      domains: DOMAINS,
      connection,
      config,
      deps: { pool: env.db.pool, providers: { url: gate.url, timeoutMs: 8000 } },
      taskQueue: env.taskQueue,
      workflowBundle: await workflowBundle(),
    });
    worker = { worker: w, running: w.run(), connection };
    cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };
    sku = await env.seedStock(100);
  });
  after(async () => {
    await Promise.all(handles.map((h) => h.terminate('test cleanup').catch(() => 0)));
    worker?.worker.shutdown();
    await worker?.running;
    await worker?.connection.close();
    await gate?.close();
    await env?.close();
  });

  /** Starts `count` orders under a fresh prefix. */
  async function startOrders(count: number) {
    const prefix = uniqueName('bulk');
    const started: Array<{ orderId: string; handle: WorkflowHandle }> = [];
    for (let i = 0; i < count; i++) {
      const order = env.newOrder(sku, { orderId: `${prefix}-${i}` });
      const handle = await env.startOrder(order);
      handles.push(handle);
      started.push({ orderId: order.orderId, handle });
    }
    return { prefix, started };
  }

  /** Parks `count` orders at charge and waits until visibility lists them as parked. */
  async function parkOrders(count: number) {
    gate.mode = 'reject-charges';
    const batch = await startOrders(count);
    await Promise.all(
      batch.started.map(({ handle }) =>
        env.waitForStatus(handle, (s) => s.parked?.step === 'charge', 'parking at charge'),
      ),
    );
    await waitFor(
      async () => {
        const run = await runOps(
          ['orders', 'list', '--step', 'needs_attention', '--prefix', batch.prefix, '--json'],
          cliEnv,
        );
        return run.json?.count === count ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'parked orders in visibility' },
    );
    return batch;
  }

  /** The signals a run received, by name, with their payloads decoded (and decrypted). */
  async function signalsOf(handle: WorkflowHandle) {
    const history = await handle.fetchHistory();
    const signals = (history.events ?? [])
      .map((e) => e.workflowExecutionSignaledEventAttributes)
      .filter((a) => a !== undefined && a !== null);
    return Promise.all(
      signals.map(async (a) => {
        const [payload] = await decodeArrayFromPayloads(
          handle.client.options.loadedDataConverter,
          a.input?.payloads,
        );
        return { name: a.signalName, payload: payload as Record<string, unknown> | undefined };
      }),
    );
  }

  describe('retry --all', () => {
    let parked: Awaited<ReturnType<typeof parkOrders>>;
    before(async () => {
      parked = await parkOrders(4);
    });

    it('refuses without --yes when stdin is not a terminal, and sends nothing', async () => {
      const run = await runOps(
        ['orders', 'retry', '--all', '--parked-at', 'charge', '--prefix', parked.prefix, '--json'],
        cliEnv,
      );
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.json.error, 'UsageError');
      assert.match(run.json.message, /--yes/);
      for (const { handle } of parked.started) assert.deepEqual(await signalsOf(handle), []);
    });

    it('--dry-run counts and lists the selection and changes nothing', async () => {
      const run = await runOps(
        [
          'orders',
          'retry',
          '--all',
          '--parked-at',
          'charge',
          '--prefix',
          parked.prefix,
          '--dry-run',
          '--json',
        ],
        cliEnv,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.json.dryRun, true);
      assert.equal(run.json.selected, 4);
      assert.deepEqual(
        run.json.orders.map((o: { orderId: string }) => o.orderId).sort(),
        parked.started.map((o) => o.orderId).sort(),
      );
      assert.ok(run.json.orders.every((o: { parkedAt: string }) => o.parkedAt === 'charge'));

      const elsewhere = await runOps(
        [
          'orders',
          'retry',
          '--all',
          '--parked-at',
          'email',
          '--prefix',
          parked.prefix,
          '--dry-run',
          '--json',
        ],
        cliEnv,
      );
      assert.equal(elsewhere.json.selected, 0);
      assert.equal(elsewhere.json.parkedElsewhere, 4);

      const human = await runOps(
        ['orders', 'retry', '--all', '--prefix', parked.prefix, '--dry-run'],
        cliEnv,
      );
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^4 order\(s\) would be sent retry/);
      for (const { handle } of parked.started) {
        assert.deepEqual(await signalsOf(handle), []);
        assert.equal((await env.status(handle)).step, 'needs_attention');
      }
    });

    it('resumes every order parked at charge in one batch and counts them; a second run finds none', async () => {
      gate.mode = 'pass';
      const run = await runOps(
        [
          'orders',
          'retry',
          '--all',
          '--parked-at',
          'charge',
          '--prefix',
          parked.prefix,
          '--reason',
          'payment API fixed',
          '--by',
          'alice',
          '--yes',
          '--json',
        ],
        cliEnv,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.json.selected, 4);
      assert.equal(run.json.signalled, 4);
      assert.equal(run.json.skipped, 0);
      assert.equal(run.json.failed, 0);
      assert.equal(run.json.jobs.length, 1);
      assert.match(run.json.jobs[0].jobId, /^onceflow-retry-/);
      assert.equal(run.json.reason, 'retry by alice: payment API fixed (onceflow CLI)');
      for (const { orderId, handle } of parked.started) {
        assert.equal((await handle.result()).outcome, 'completed');
        assert.equal((await env.ledger(orderId)).charges.length, 1);
        const [signal] = await signalsOf(handle);
        assert.equal(signal?.name, 'retryStep');
        assert.equal(signal?.payload?.by, 'alice');
        assert.equal(signal?.payload?.reason, 'payment API fixed');
      }

      const again = await runOps(
        [
          'orders',
          'retry',
          '--all',
          '--parked-at',
          'charge',
          '--prefix',
          parked.prefix,
          '--yes',
          '--json',
        ],
        cliEnv,
      );
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.json.selected, 0);
      assert.equal(again.json.signalled, 0);
    });
  });

  it('resolve stays per order and records who and why in the signal', async () => {
    const parked = await parkOrders(1);
    const { orderId, handle } = parked.started[0]!;
    const run = await runOps(
      [
        'orders',
        'resolve',
        orderId,
        '--by',
        'carol',
        '--reason',
        'charge seen at the PSP',
        '--json',
      ],
      cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.operatorAction.by, 'carol');
    assert.equal((await handle.result()).outcome, 'completed');
    const [signal] = await signalsOf(handle);
    assert.equal(signal?.name, 'resolveStep');
    assert.deepEqual(
      { by: signal?.payload?.by, reason: signal?.payload?.reason },
      { by: 'carol', reason: 'charge seen at the PSP' },
    );
    assert.match(String(signal?.payload?.at), /^\d{4}-\d\d-\d\dT/);
    const shown = await runOps(['orders', 'show', orderId, '--json'], cliEnv);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(
      shown.json.operatorActions.map((a: { action: string; by: string; reason: string }) => [
        a.action,
        a.by,
        a.reason,
      ]),
      [['resolve', 'carol', 'charge seen at the PSP']],
    );
    const human = await runOps(['orders', 'show', orderId], cliEnv);
    assert.match(human.stdout, /operator action:\s+\S+ resolve by carol: charge seen at the PSP/);
    const all = await runOps(['orders', 'resolve', '--all'], cliEnv);
    assert.equal(all.code, 2, 'resolve has no --all');
  });

  it('cancel --all compensates every selected order and records who and why', async () => {
    const parked = await parkOrders(2);
    const stockBefore = await env.stockOf(sku);
    const refused = await runOps(
      ['orders', 'cancel', '--all', '--prefix', parked.prefix, '--yes', '--json'],
      cliEnv,
    );
    assert.equal(refused.code, 2, 'a bulk cancel needs a reason');
    const run = await runOps(
      [
        'orders',
        'cancel',
        '--all',
        '--parked-at',
        'charge',
        '--prefix',
        parked.prefix,
        '--reason',
        'incident 42',
        '--by',
        'bob',
        '--yes',
        '--json',
      ],
      cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.signalled, 2);
    assert.equal(run.json.failed, 0);
    for (const { orderId, handle } of parked.started) {
      const result = await handle.result();
      assert.equal(result.outcome, 'cancelled');
      assert.equal(result.reason, 'incident 42');
      assert.equal((await env.ledger(orderId)).charges.length, 0);
      const [signal] = await signalsOf(handle);
      assert.equal(signal?.name, 'cancelOrder');
      assert.equal(signal?.payload?.by, 'bob');
    }
    assert.equal(await env.stockOf(sku), stockBefore + 2 * 2, 'both reservations released');
  });

  it('pause --step charge stops the retries, a bulk retry of parked orders leaves them alone, resume restarts them with jitter', async () => {
    gate.mode = 'hold-charges';
    const batch = await startOrders(2);
    const pendingCharge = async (handle: WorkflowHandle) =>
      (await handle.describe()).raw.pendingActivities?.find(
        (a) => a.activityType?.name === 'chargePayment',
      );
    for (const { handle } of batch.started) {
      await waitFor(async () => (await pendingCharge(handle)) ?? undefined, {
        timeoutMs: 30_000,
        intervalMs: 200,
        what: 'a pending charge',
      });
    }
    await waitFor(
      async () => {
        // The pause selection (charging or waiting) as a dry run: both orders, not paused yet.
        const run = await runOps(
          ['orders', 'pause', '--step', 'charge', '--prefix', batch.prefix, '--dry-run', '--json'],
          cliEnv,
        );
        return run.json?.wouldPause === 2 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the charges in the pause selection' },
    );
    const paused = await runOps(
      [
        'orders',
        'pause',
        '--step',
        'charge',
        '--prefix',
        batch.prefix,
        '--reason',
        'PSP down',
        '--yes',
        '--json',
      ],
      cliEnv,
    );
    assert.equal(paused.code, 0, paused.stderr);
    assert.equal(paused.json.paused, 2);
    for (const { handle } of batch.started) {
      assert.equal((await pendingCharge(handle))?.paused, true);
    }

    // Running orders carry no Step (only parked, waiting and finished ones are written to
    // visibility), so a bulk retry of parked orders does not select these paused ones.
    const listed = await runOps(['orders', 'list', '--prefix', batch.prefix, '--json'], cliEnv);
    assert.deepEqual(
      listed.json.orders.map((o: { step?: string }) => o.step ?? ''),
      ['', ''],
      'no Step while the charge runs',
    );
    const notParked = await runOps(
      ['orders', 'retry', '--all', '--prefix', batch.prefix, '--yes', '--json'],
      cliEnv,
    );
    assert.equal(notParked.code, 0, notParked.stderr);
    assert.deepEqual(
      [
        notParked.json.selected,
        notParked.json.signalled,
        notParked.json.skipped,
        notParked.json.failed,
      ],
      [0, 0, 0, 0],
    );

    gate.mode = 'pass';
    const dry = await runOps(
      ['orders', 'resume', '--step', 'charge', '--prefix', batch.prefix, '--dry-run', '--json'],
      cliEnv,
    );
    assert.equal(dry.json.paused, 2);
    assert.equal((await pendingCharge(batch.started[0]!.handle))?.paused, true, 'dry run');
    const resumed = await runOps(
      [
        'orders',
        'resume',
        '--step',
        'charge',
        '--prefix',
        batch.prefix,
        '--jitter',
        '1s',
        '--yes',
        '--json',
      ],
      cliEnv,
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.json.resumed, 2);
    for (const { orderId, handle } of batch.started) {
      assert.equal((await handle.result()).outcome, 'completed');
      assert.equal((await env.ledger(orderId)).charges.length, 1);
    }
  });
});
