import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { waitFor } from '../../../src/util/wait';
import { useBulkOpsWorld } from '../../support/bulk-ops-world';
import { runOps } from '../../support/ops-cli';

/**
 * The bulk operator commands against the real stack: orders parked at charge by a payment
 * API that rejects every charge (400, a permanent cause), then resolved one by one or cancelled
 * in one batch; and orders whose charge keeps timing out, paused and resumed (bulk retry:
 * ./bulk-retry-cli.test.ts). Every selection is
 * narrowed by an order-ID prefix of its own, so other tests' orders in the shared
 * namespace are never touched.
 */
describe('ops CLI: resolve, bulk cancel, pause/resume (real Temporal, batch operations)', function () {
  this.timeout(240_000);
  const world = useBulkOpsWorld();

  it('resolve stays per order and records who and why in its request', async () => {
    const parked = await world.parkOrders(1);
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
      world.cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.operatorAction.by, 'carol');
    assert.equal((await handle.result()).outcome, 'completed');
    const [signal] = await world.signalsOf(handle);
    assert.equal(signal?.name, 'operatorResolve');
    assert.deepEqual(
      { by: signal?.payload?.by, reason: signal?.payload?.reason },
      { by: 'carol', reason: 'charge seen at the PSP' },
    );
    assert.match(String(signal?.payload?.at), /^\d{4}-\d\d-\d\dT/);
    const shown = await runOps(['orders', 'show', orderId, '--json'], world.cliEnv);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(
      shown.json.operatorActions.map((a: { action: string; by: string; reason: string }) => [
        a.action,
        a.by,
        a.reason,
      ]),
      [['resolve', 'carol', 'charge seen at the PSP']],
    );
    const human = await runOps(['orders', 'show', orderId], world.cliEnv);
    assert.match(human.stdout, /operator action:\s+\S+ resolve by carol: charge seen at the PSP/);
    const all = await runOps(['orders', 'resolve', '--all'], world.cliEnv);
    assert.equal(all.code, 2, 'resolve has no --all');
  });

  it('cancel --all compensates every selected order and records who and why', async () => {
    const parked = await world.parkOrders(2);
    const stockBefore = await world.env.stockOf(world.sku);
    const refused = await runOps(
      ['orders', 'cancel', '--all', '--prefix', parked.prefix, '--yes', '--json'],
      world.cliEnv,
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
      world.cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.signalled, 2);
    assert.equal(run.json.failed, 0);
    for (const { orderId, handle } of parked.started) {
      const result = await handle.result();
      assert.equal(result.outcome, 'cancelled');
      assert.equal(result.reason, 'incident 42');
      assert.equal((await world.env.ledger(orderId)).charges.length, 0);
      const [signal] = await world.signalsOf(handle);
      assert.equal(signal?.name, 'cancelOrder');
      assert.equal(signal?.payload?.by, 'bob');
    }
    assert.equal(
      await world.env.stockOf(world.sku),
      stockBefore + 2 * 2,
      'both reservations released',
    );
  });

  it('pause --step charge stops the retries, a bulk retry of parked orders leaves them alone, resume restarts them with jitter', async () => {
    world.gate.mode = 'hold-charges';
    const batch = await world.startOrders(2);
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
          world.cliEnv,
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
      world.cliEnv,
    );
    assert.equal(paused.code, 0, paused.stderr);
    assert.equal(paused.json.paused, 2);
    for (const { handle } of batch.started) {
      assert.equal((await pendingCharge(handle))?.paused, true);
    }

    // Running orders carry no Step (only parked, waiting and finished ones are written to
    // visibility), so a bulk retry of parked orders does not select these paused ones.
    const listed = await runOps(
      ['orders', 'list', '--prefix', batch.prefix, '--json'],
      world.cliEnv,
    );
    assert.deepEqual(
      listed.json.orders.map((o: { step?: string }) => o.step ?? ''),
      ['', ''],
      'no Step while the charge runs',
    );
    const notParked = await runOps(
      ['orders', 'retry', '--all', '--prefix', batch.prefix, '--yes', '--json'],
      world.cliEnv,
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

    world.gate.mode = 'pass';
    const dry = await runOps(
      ['orders', 'resume', '--step', 'charge', '--prefix', batch.prefix, '--dry-run', '--json'],
      world.cliEnv,
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
      world.cliEnv,
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.json.resumed, 2);
    for (const { orderId, handle } of batch.started) {
      assert.equal((await handle.result()).outcome, 'completed');
      assert.equal((await world.env.ledger(orderId)).charges.length, 1);
    }
  });
});
