import { strict as assert } from 'node:assert';
import { useBulkOpsWorld } from '../../support/bulk-ops-world';
import { runOps } from '../../support/ops-cli';

/**
 * `orders retry --all` against the real stack: orders parked at charge by a payment API that
 * rejects every charge (400, a permanent cause), then retried in one batch. Every selection is
 * narrowed by an order-ID prefix of its own, so other tests' orders in the shared namespace are
 * never touched. Resolve, cancel and pause/resume: ./bulk-cli.test.ts.
 */
describe('ops CLI: bulk retry of parked orders (real Temporal, batch operations)', function () {
  this.timeout(240_000);
  const world = useBulkOpsWorld();

  describe('retry --all', () => {
    let parked: Awaited<ReturnType<typeof world.parkOrders>>;
    before(async () => {
      parked = await world.parkOrders(4);
    });

    it('refuses without --yes when stdin is not a terminal, and sends nothing', async () => {
      const run = await runOps(
        ['orders', 'retry', '--all', '--parked-at', 'charge', '--prefix', parked.prefix, '--json'],
        world.cliEnv,
      );
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.json.error, 'UsageError');
      assert.match(run.json.message, /--yes/);
      for (const { handle } of parked.started) assert.deepEqual(await world.signalsOf(handle), []);
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
        world.cliEnv,
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
        world.cliEnv,
      );
      assert.equal(elsewhere.json.selected, 0);
      assert.equal(elsewhere.json.parkedElsewhere, 4);

      const human = await runOps(
        ['orders', 'retry', '--all', '--prefix', parked.prefix, '--dry-run'],
        world.cliEnv,
      );
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^4 order\(s\) would be sent retry/);
      for (const { handle } of parked.started) {
        assert.deepEqual(await world.signalsOf(handle), []);
        assert.equal((await world.env.status(handle)).step, 'needs_attention');
      }
    });

    it('resumes every order parked at charge in one batch and counts them; a second run finds none', async () => {
      world.gate.mode = 'pass';
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
        world.cliEnv,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.json.selected, 4);
      assert.equal(run.json.signalled, 4);
      assert.equal(run.json.skipped, 0);
      assert.equal(run.json.failed, 0);
      assert.equal(run.json.jobs.length, 1);
      assert.match(run.json.jobs[0].jobId, /^onceflow-retry-/);
      assert.equal(run.json.reason, 'retry by alice: payment API fixed (onceflow CLI)');
      // Behind live traffic: the retried runs' priority key is lowered before the signal.
      assert.deepEqual(run.json.priority, { priorityKey: 4, changed: 4, failed: 0 });
      for (const { handle } of parked.started)
        assert.equal((await handle.describe()).priority?.priorityKey, 4);
      for (const { orderId, handle } of parked.started) {
        assert.equal((await handle.result()).outcome, 'completed');
        assert.equal((await world.env.ledger(orderId)).charges.length, 1);
        const [signal] = await world.signalsOf(handle);
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
        world.cliEnv,
      );
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.json.selected, 0);
      assert.equal(again.json.signalled, 0);
    });
  });
});
