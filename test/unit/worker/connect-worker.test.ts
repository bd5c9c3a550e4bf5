import { strict as assert } from 'node:assert';
import type { NativeConnection } from '@temporalio/worker';
import { connectWorker } from '../../../src/worker/connect-worker';

const temporal = { address: '127.0.0.1:7233', namespace: 'default' } as never;
const refused = () =>
  new Error(
    'tonic::transport::Error(Transport, ConnectError("tcp connect error", Os { code: 111, kind: ConnectionRefused }))',
  );

describe('connectWorker: a server that is not listening yet is waited for', () => {
  it('connects once the server listens, having waited through refusals', async () => {
    let calls = 0;
    const waits: string[] = [];
    const connection = await connectWorker(temporal, {
      onWait: (e) => waits.push(e.message),
      connect: async () => {
        calls += 1;
        if (calls < 3) throw refused();
        return 'connected' as unknown as NativeConnection;
      },
    });
    assert.equal(connection, 'connected');
    assert.equal(waits.length, 2);
  });

  it('fails at once on an error that is not a refused connection (TLS, address)', async () => {
    let calls = 0;
    await assert.rejects(
      connectWorker(temporal, {
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
      connectWorker(temporal, { waitMs: 0, connect: async () => Promise.reject(refused()) }),
      /ConnectionRefused/,
    );
  });
});
