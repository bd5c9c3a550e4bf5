import { strict as assert } from 'node:assert';
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool } from '../../../src/db/pool';
import { setStock } from '../../../src/domains/orders/inventory/stock-store';
import { isAlive } from '../../../harness/stack/processes';
import { readStackState, type StackState } from '../../../harness/stack/stack';
import { waitFor } from '../../../src/util/wait';
import { newShell, runLine, startLine, type ShellRun } from '../../support/new-shell';
import { testConfig, uniqueName } from '../../support/services';

/** A long-running README command (worker, bridge, providers) and how to stop it. */
interface Service {
  name: string;
  out: ShellRun;
  child: ChildProcess;
  stop(): Promise<void>;
}

function startService(name: string, line: string, env: NodeJS.ProcessEnv): Service {
  const { child, out } = startLine(line, env);
  const closed = new Promise<void>((done) => child.on('close', () => done()));
  return {
    name,
    out,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, 'SIGTERM');
      const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
      await closed;
      clearTimeout(killer);
    },
  };
}

/** Waits for a line in a service's output; fails at once if the service exits. */
async function waitForOutput(service: Service, pattern: RegExp, timeoutMs = 120_000) {
  await waitFor(
    () => {
      if (service.child.exitCode !== null)
        throw new Error(
          `${service.name} exited ${service.child.exitCode}:\n${service.out.stdout}\n${service.out.stderr}`,
        );
      return pattern.test(service.out.stdout);
    },
    { timeoutMs, intervalMs: 200, what: `${service.name}: ${pattern}` },
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/**
 * README's commands that talk to the stack, run as written in a new shell with nothing
 * exported, against the runner's running stack (issue 25): each finds its addresses, the dev
 * key and the providers' admin token by itself. Before, each one stopped with
 * `ONCEFLOW_ENCRYPTION_KEYS: is required`.
 */
describe('README commands in a new shell find the running local stack (issue 25)', function () {
  this.timeout(600_000);
  let state: StackState;

  before(() => {
    const found = readStackState();
    assert.ok(found, 'the runner started a local stack (stack.json)');
    for (const [name, pid] of Object.entries(found.pids))
      assert.ok(pid !== undefined && isAlive(pid), `its ${name} runs`);
    state = found;
  });

  it('ops CLI, setup and reconcile work with nothing exported', async () => {
    const shell = newShell();
    for (const name of ['TEMPORAL_ADDRESS', 'DATABASE_URL', 'ONCEFLOW_ENCRYPTION_KEY_FILE'])
      assert.equal(shell[name], undefined, `${name} is not exported`);

    const list = await runLine('npx onceflow orders list --step needs_attention', shell);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /order\(s\) · query: .*Step = 'needs_attention'/);
    // Links point at the stack's Web UI, not the default port.
    assert.ok(list.stdout.includes(`Web UI: ${state.env.TEMPORAL_UI_URL}/`), list.stdout);

    const dlq = await runLine('npx onceflow dlq list --limit 1', shell);
    assert.equal(dlq.code, 0, dlq.stderr);

    const setup = await runLine('npm run setup', shell);
    assert.equal(setup.code, 0, setup.stderr);
    assert.match(setup.stdout, /migrations applied: /);

    const prefix = uniqueName('no-such-orders');
    const reconcile = await runLine(`npm run reconcile -- --prefix ${prefix}`, shell);
    assert.equal(reconcile.code, 0, `${reconcile.stdout}\n${reconcile.stderr}`);
  });

  describe('the pipeline: providers, worker, bridge, producer, orders show, reconcile', () => {
    const services: Service[] = [];
    after(async () => {
      for (const s of services.reverse()) await s.stop();
    });

    it('runs an order stream end to end, each process configured by the stack', async () => {
      // Only what keeps this run apart from other tests (its own topic, queue, schemas, ports):
      // no address, key or token, so everything else must come from the stack.
      const own = {
        KAFKA_TOPICS: uniqueName('readme_orders'),
        KAFKA_GROUP_ID: uniqueName('readme_bridge'),
        TEMPORAL_TASK_QUEUE: uniqueName('readme_tq'),
        DATABASE_SCHEMA: uniqueName('readme'),
        PROVIDERS_DB_SCHEMA: uniqueName('readme_sandbox'),
        PROVIDERS_URL: `http://127.0.0.1:${await freePort()}`,
        BRIDGE_METRICS_PORT: '0',
        WORKER_METRICS_PORT: '0',
      };
      const shell = newShell(own);

      const setup = await runLine('npm run setup', shell);
      assert.equal(setup.code, 0, setup.stderr);
      assert.match(setup.stdout, new RegExp(`topics created: .*${own.KAFKA_TOPICS}`));
      const pool = createPool({ ...testConfig().database, schema: own.DATABASE_SCHEMA });
      try {
        for (let i = 1; i <= 5; i++) await setStock(pool, `SKU-${i}`, 1000);
      } finally {
        await pool.end();
      }

      const providers = startService('providers', 'npm run providers', shell);
      services.push(providers);
      await waitForOutput(providers, /sandbox providers listening/);
      const worker = startService('worker', 'npm run worker', shell);
      services.push(worker);
      await waitForOutput(worker, /worker polling/, 240_000);
      const bridge = startService('bridge', 'npm run bridge', shell);
      services.push(bridge);
      await waitForOutput(bridge, /partitions assigned/);

      // The startup log says where each setting came from, and never the stack's secrets.
      const start = JSON.parse(
        worker.out.stdout.split('\n').find((l) => /starting worker/.test(l))!,
      );
      assert.equal(start.config.origin.localStack.status, 'used');
      assert.deepEqual(start.config.origin.sources['local stack'].sort(), [
        'DATABASE_URL',
        'KAFKA_BROKERS',
        'ONCEFLOW_ENCRYPTION_KEY_FILE',
        'PROVIDERS_ADMIN_TOKEN',
        // The stack's Apicurio, unless it runs without one (ONCEFLOW_SCHEMA_REGISTRY).
        ...(state.env.SCHEMA_REGISTRY_URL ? ['SCHEMA_REGISTRY_URL'] : []),
        'TEMPORAL_ADDRESS',
        'TEMPORAL_UI_URL',
      ]);
      assert.ok(start.config.origin.sources.environment.includes('TEMPORAL_TASK_QUEUE'));
      for (const s of services)
        assert.ok(!s.out.stdout.includes(state.env.PROVIDERS_ADMIN_TOKEN!), `${s.name} log`);

      const prefix = uniqueName('readme');
      const produce = await runLine(`npm run produce -- --orders 3 --prefix ${prefix}`, shell);
      assert.equal(produce.code, 0, produce.stderr);
      assert.match(produce.stdout, /"messages":3/);

      const done = await waitFor(
        async () => {
          const run = await runLine(`npx onceflow orders list --prefix ${prefix} --json`, shell);
          assert.equal(run.code, 0, run.stderr);
          const orders = JSON.parse(run.stdout).orders as Array<{ orderId: string; step: string }>;
          return orders.length === 3 && orders.every((o) => o.step === 'completed')
            ? orders
            : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 2000, what: 'three orders completed' },
      );

      const show = await runLine(`npx onceflow orders show -- ${done[0]!.orderId}`, shell);
      assert.equal(show.code, 0, show.stderr);
      assert.match(show.stdout, /^step: +completed$/m);
      // The providers' admin API answered with the stack's token.
      assert.match(show.stdout, /^provider ledger: +1 charge\(s\), 0 refund\(s\), 1 email\(s\)$/m);

      const reconcile = await runLine(`npm run reconcile -- --prefix ${prefix}`, shell);
      assert.equal(reconcile.code, 0, `${reconcile.stdout}\n${reconcile.stderr}`);
    });
  });
});

/** The same commands with no stack to find: they say what to run, as lines (exit 78). */
describe('README commands with neither settings nor a running stack (issue 25)', function () {
  this.timeout(240_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'onceflow-no-stack-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const lines = [
    'npx onceflow orders list --step needs_attention',
    'npm run worker',
    'npm run providers',
    'npm run produce -- --orders 1',
    'npm run reconcile',
  ];

  it('each stops with exit 78 and says what to run, one line each', async () => {
    const shell = newShell({ ONCEFLOW_STATE_DIR: dir });
    for (const line of lines) {
      const run = await runLine(line, shell);
      assert.equal(run.code, 78, `${line}: ${run.stdout}\n${run.stderr}`);
      assert.ok(!run.stderr.includes('\\n'), `${line}: no literal \\n in ${run.stderr}`);
      const said = run.stderr.split('\n');
      assert.ok(
        said.some((l) =>
          /^(onceflow: )?No settings and no running local stack \(no stack recorded in .*stack\.json\)\. Either$/.test(
            l,
          ),
        ),
        `${line}: ${run.stderr}`,
      );
      assert.ok(
        said.some((l) => /^ {2}start the local stack: +npm run stack/.test(l)),
        line,
      );
      assert.ok(
        said.some((l) => /^ {2}or name the services: +TEMPORAL_ADDRESS/.test(l)),
        line,
      );
    }
  });

  it('a stack that is recorded but not running is named as such', async () => {
    writeFileSync(
      join(dir, 'stack.json'),
      JSON.stringify({
        pids: { kafka: 2 ** 22 + 7 },
        env: {
          TEMPORAL_ADDRESS: '127.0.0.1:1',
          TEMPORAL_UI_URL: 'http://127.0.0.1:2',
          KAFKA_BROKERS: '127.0.0.1:3',
          DATABASE_URL: '',
        },
        startedAt: new Date().toISOString(),
      }),
    );
    const run = await runLine('npx onceflow orders list', newShell({ ONCEFLOW_STATE_DIR: dir }));
    assert.equal(run.code, 78, run.stderr);
    assert.match(run.stderr, /is not running: kafka \(pid \d+\) is gone\)\. Either\n/);
  });

  it('a bad setting lists its problems as lines too', async () => {
    const run = await runLine(
      'npx onceflow orders list',
      newShell({ ONCEFLOW_STATE_DIR: dir, TEMPORAL_ADDRESS: 'nonsense' }),
    );
    assert.equal(run.code, 78, run.stderr);
    assert.match(run.stderr, /^onceflow: Invalid configuration:\n {2}TEMPORAL_ADDRESS: /m);
  });
});
