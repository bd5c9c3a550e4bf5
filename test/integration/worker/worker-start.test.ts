import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { pickAnyPort } from '../../../harness/stack/ports';
import { waitFor } from '../../../src/util/wait';
import { testConfig, uniqueName } from '../../support/services';
import { logChildOutput } from '../../support/test-log';

const root = resolve(__dirname, '..', '..', '..');

/** Listens on 127.0.0.1:port, or resolves undefined when the port is taken. */
function tryListen(port: number, onSocket?: (s: import('node:net').Socket) => void) {
  return new Promise<Server | undefined>((done) => {
    const server = createServer(onSocket);
    server.once('error', () => done(undefined));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => done(server));
  });
}

/** A TCP relay from `port` to Temporal: "the server starts listening" on an address we own. */
function relayTo(target: string) {
  const cut = target.lastIndexOf(':');
  return (client: import('node:net').Socket) => {
    const upstream = connect(Number(target.slice(cut + 1)), target.slice(0, cut));
    client.pipe(upstream).pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end);
    upstream.on('error', end);
  };
}

/**
 * A deploy during a Temporal restart starts the worker before the server listens. Found by
 * the chaos run: each failed native connection shut the SDK's runtime down, freeing the
 * worker's metrics port; the next worker on the host took it and the next attempt, which
 * re-created the runtime on that port, exited 1. Here the test plays that next worker.
 */
describe('a worker started before Temporal listens (real worker process, real server)', function () {
  this.timeout(120_000);
  const config = testConfig();
  let child: ChildProcess | undefined;
  const servers: Server[] = [];
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('waits, keeps its metrics port through the wait and polls once the server listens', async () => {
    const taken = new Set<number>();
    const temporalPort = await pickAnyPort(taken);
    const metricsPort = await pickAnyPort(taken);
    let out = '';
    child = spawn(process.execPath, ['--import', 'tsx', resolve(root, 'src/worker/main.ts')], {
      cwd: root,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
        TEMPORAL_TASK_QUEUE: uniqueName('worker_start_tq'),
        WORKER_METRICS_PORT: String(metricsPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const worker = child;
    worker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    logChildOutput(worker, 'worker');
    const waits = () => out.split('Temporal is not serving yet').length - 1;

    // From the worker's first wait (its runtime and exporter are up) through its third,
    // another process tries for the metrics port.
    await waitFor(() => waits() >= 1 || worker.exitCode !== null, {
      timeoutMs: 60_000,
      what: 'the worker to wait for Temporal',
    });
    let rival: Server | undefined;
    await waitFor(
      async () => {
        rival ??= await tryListen(metricsPort);
        return waits() >= 3 || worker.exitCode !== null;
      },
      { timeoutMs: 60_000, intervalMs: 50, what: 'three waits of the worker' },
    );
    if (rival) servers.push(rival);

    const relay = await tryListen(temporalPort, relayTo(config.temporal.address));
    assert.ok(relay, `port ${temporalPort} was taken`);
    servers.push(relay);
    await waitFor(() => out.includes('"worker polling"') || worker.exitCode !== null, {
      timeoutMs: 60_000,
      what: 'the worker to poll',
    });
    assert.equal(worker.exitCode, null, `the worker exited:\n${out}`);
    assert.equal(rival, undefined, 'the worker let go of its metrics port while it waited');
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(metrics, /temporal_/);

    const exited = new Promise<number | null>((r) => worker.once('exit', (code) => r(code)));
    worker.kill('SIGTERM');
    assert.equal(await exited, 0, out);
  });
});
