import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:net';
import { ephemeralRangeStart, pickAnyPort, pickPort } from '../../../../harness/stack/ports';

/** Listens on 127.0.0.1:port (0 = any) and returns the server and its port. */
function listen(port: number): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1' }, () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

// An ephemeral port (from the kernel's local port range) picked for a listener can be taken by
// an outgoing connection before the service binds it: the stack's picks stay below the range.
describe('port picks stay below the ephemeral range', () => {
  it('reads the range from the kernel', () => {
    const start = ephemeralRangeStart();
    assert.ok(start > 1024 && start <= 65535, `range starts at ${start}`);
  });

  it('a busy preferred port gives the next free one above it, below the range', async () => {
    const busy = await listen(await pickAnyPort(new Set()));
    try {
      const picked = await pickPort(busy.port, new Set());
      assert.ok(picked > busy.port, `${picked} above the busy ${busy.port}`);
      assert.ok(picked < ephemeralRangeStart(), `${picked} below the ephemeral range`);
    } finally {
      await close(busy.server);
    }
  });

  it('a port already handed out in this start is not handed out again', async () => {
    const taken = new Set<number>();
    const first = await pickPort(20999, taken);
    const second = await pickPort(20999, taken);
    assert.notEqual(first, second);
    assert.ok(taken.has(first) && taken.has(second));
  });

  it('a preferred port inside the range that is busy gives a port below the range', async () => {
    const busy = await listen(0); // the kernel's own pick: inside the range
    try {
      assert.ok(busy.port >= ephemeralRangeStart());
      const picked = await pickPort(busy.port, new Set());
      assert.ok(picked < ephemeralRangeStart(), `${picked} below the ephemeral range`);
    } finally {
      await close(busy.server);
    }
  });

  it('pickAnyPort hands out distinct ports below the range', async () => {
    const taken = new Set<number>();
    const ports = [];
    for (let i = 0; i < 20; i++) ports.push(await pickAnyPort(taken));
    assert.equal(new Set(ports).size, 20);
    for (const p of ports) assert.ok(p >= 20000 && p < ephemeralRangeStart(), String(p));
  });
});
