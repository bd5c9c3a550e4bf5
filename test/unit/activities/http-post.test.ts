import { strict as assert } from 'node:assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postJson } from '../../../src/activities/http-post';

/** A real loopback server (no mock): each test decides how it answers. */
async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => void }> {
  const server = http.createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('postJson (provider HTTP over node:http)', () => {
  it('sends JSON with the given headers and returns status, headers and the parsed body', async () => {
    const seen: { body?: string; key?: string; type?: string } = {};
    const server = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        Object.assign(seen, {
          body,
          key: req.headers['idempotency-key'],
          type: req.headers['content-type'],
        });
        res.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' });
        res.end('{"error":"slow down"}');
      });
    });
    try {
      const res = await postJson(
        `${server.url}/v1/charges`,
        { 'idempotency-key': 'k1' },
        { a: 1 },
        2000,
      );
      assert.equal(res.status, 429);
      assert.equal(res.header('Retry-After'), '3');
      assert.equal(res.header('x-missing'), null);
      assert.deepEqual(res.json, { error: 'slow down' });
      assert.deepEqual(seen, { body: '{"a":1}', key: 'k1', type: 'application/json' });
    } finally {
      server.close();
    }
  });

  it('reads a body that is not JSON as {} (the status still tells)', async () => {
    const server = await serve((_req, res) => res.writeHead(502).end('<html>bad gateway</html>'));
    try {
      const res = await postJson(`${server.url}/x`, {}, {}, 2000);
      assert.equal(res.status, 502);
      assert.deepEqual(res.json, {});
    } finally {
      server.close();
    }
  });

  it('rejects with a TimeoutError when the body stalls past the deadline', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":'); // and never ends
    });
    try {
      await assert.rejects(postJson(`${server.url}/x`, {}, {}, 300), { name: 'TimeoutError' });
    } finally {
      server.close();
    }
  });

  for (const [name, head] of [
    ['a Content-Length body', { 'content-length': '100' }],
    ['a chunked body', { 'transfer-encoding': 'chunked' }],
  ] as const) {
    it(`fails at once, as a reset connection, when the provider closes mid-body (${name})`, async function () {
      // Far below the call's own deadline: only an immediate failure passes.
      this.timeout(10_000);
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', ...head });
        res.write('{"id":"ch_1",', () => res.socket?.destroy());
      });
      try {
        await assert.rejects(
          postJson(`${server.url}/v1/charges`, {}, {}, 600_000),
          (err: Error) => {
            assert.notEqual(err.name, 'TimeoutError');
            assert.equal((err as NodeJS.ErrnoException).code, 'ECONNRESET');
            return true;
          },
        );
      } finally {
        server.close();
      }
    });
  }

  it('rejects with the socket code when nothing listens', async () => {
    const server = await serve(() => undefined);
    const { url } = server;
    server.close();
    await assert.rejects(postJson(`${url}/x`, {}, {}, 2000), { code: 'ECONNREFUSED' });
  });

  it('refuses a protocol other than http and https', async () => {
    await assert.rejects(postJson('ftp://127.0.0.1/x', {}, {}, 1000), /only http and https/);
  });
});
