import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:net';
import type { NativeConnection } from '@temporalio/worker';
import { connectWorker, probeListening } from '../../../src/worker/connect-worker';

const temporal = { address: '127.0.0.1:7233', namespace: 'default' } as never;
const refused = () =>
  new Error(
    'tonic::transport::Error(Transport, ConnectError("tcp connect error", Os { code: 111, kind: ConnectionRefused }))',
  );
const portTaken = () =>
  new Error('Failed to start prometheus metrics exporter: Address already in use (os error 98)');
const listening = async () => null;
/** A native connect that throws `errors` one per attempt, then connects. */
const connectAfter = (errors: Error[]) => async () => {
  const err = errors.shift();
  if (err) throw err;
  return 'connected' as unknown as NativeConnection;
};

describe('connectWorker: a server that is not serving yet is waited for', () => {
  it('connects once the server listens, having waited through refusals', async () => {
    let calls = 0;
    const waits: string[] = [];
    const connection = await connectWorker(temporal, {
      onWait: (e) => waits.push(e.message),
      probe: listening,
      connect: async () => {
        calls += 1;
        if (calls < 3) throw refused();
        return 'connected' as unknown as NativeConnection;
      },
    });
    assert.equal(connection, 'connected');
    assert.equal(waits.length, 2);
  });

  it('tries the native connection only once the port accepts TCP', async () => {
    let probes = 0;
    let connects = 0;
    const connection = await connectWorker(temporal, {
      probe: async () => (++probes < 3 ? refused() : null),
      connect: async () => {
        connects += 1;
        return 'connected' as unknown as NativeConnection;
      },
    });
    assert.equal(connection, 'connected');
    assert.deepEqual({ probes, connects }, { probes: 3, connects: 1 });
  });

  it('goes on without metrics when a failed attempt lost the metrics port to another worker', async () => {
    const errors = [refused(), portTaken()];
    const dropped: string[] = [];
    const connection = await connectWorker(temporal, {
      probe: listening,
      onMetricsPortTaken: (e) => dropped.push(e.message),
      connect: connectAfter(errors),
    });
    assert.equal(connection, 'connected');
    assert.equal(dropped.length, 1);
  });

  it('waits while a listening server is not serving yet (UNAVAILABLE during its start)', async () => {
    const errors = [
      new Error(
        'Failed to call GetSystemInfo: code: \'The service is currently unavailable\', message: "Frontend is not healthy yet"',
      ),
    ];
    const waits: string[] = [];
    const connection = await connectWorker(temporal, {
      probe: listening,
      onWait: (e) => waits.push(e.message),
      connect: connectAfter(errors),
    });
    assert.equal(connection, 'connected');
    assert.match(waits[0] ?? '', /not healthy yet/);
  });

  it('fails at once on an error that is not a refused connection (TLS, address)', async () => {
    let calls = 0;
    await assert.rejects(
      connectWorker(temporal, {
        probe: listening,
        connect: async () => {
          calls += 1;
          throw new Error('invalid peer certificate: UnknownIssuer');
        },
      }),
      /UnknownIssuer/,
    );
    assert.equal(calls, 1);
  });

  it('gives up after its wait', async () => {
    await assert.rejects(
      connectWorker(temporal, { waitMs: 0, probe: async () => refused() }),
      /ConnectionRefused/,
    );
  });
});

describe('probeListening', () => {
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('resolves null on a listening port and the refusal on a closed one', async () => {
    assert.equal(await probeListening(`127.0.0.1:${port}`), null);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const failure = await probeListening(`127.0.0.1:${closedPort}`);
    assert.match(failure?.message ?? '', /ECONNREFUSED/);
  });
});
