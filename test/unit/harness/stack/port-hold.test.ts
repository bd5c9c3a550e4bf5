import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import { holdPort } from '../../../../harness/stack/port-hold';
import { isPortFree, pickAnyPort, pickPort } from '../../../../harness/stack/ports';

/** Resolves how a connection to the port ended: 'closed' by the peer or 'refused'. */
function connectionTo(port: number): Promise<'closed' | 'refused'> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('error', (err: NodeJS.ErrnoException) =>
      resolve(err.code === 'ECONNREFUSED' ? 'refused' : 'closed'),
    );
    socket.once('close', () => resolve('closed'));
  });
}

describe('holdPort: a stopped service keeps its port', () => {
  it("keeps another stack's port pick off the port and refuses every connection, until released", async () => {
    const port = await pickAnyPort(new Set());
    const hold = await holdPort(port);
    assert.ok(hold, 'the free port is held');
    try {
      assert.equal(await isPortFree(port), false, 'the port is not free while held');
      // Another stack preferring this port gets another one.
      assert.notEqual(await pickPort(port, new Set()), port);
      assert.equal(await connectionTo(port), 'refused', 'a client meets a dead service');
      assert.equal(await holdPort(port), undefined, 'a second hold finds it taken');
    } finally {
      await hold.release();
    }
    assert.equal(await isPortFree(port), true, 'released for the service to bind');
    assert.equal(await connectionTo(port), 'refused');
  });
});
