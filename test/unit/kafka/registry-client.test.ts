import { strict as assert } from 'node:assert';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRegistryClient, loadRegistryLibrary } from '../../../src/kafka/registry-client';
import type { SchemaRegistryConfig } from '../../../src/config/schema-registry';

/** A registry that answers `GET /subjects` and remembers the request headers it got. */
async function listeningRegistry() {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader('content-type', 'application/json');
    res.end('["orders-value"]');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const configOf = (url: string, auth: SchemaRegistryConfig['auth']): SchemaRegistryConfig =>
  ({ url, auth, timeoutMs: 2000, tls: {} }) as SchemaRegistryConfig;

describe("the registry client's credentials (the library's client, a real HTTP server)", () => {
  it('sends a bearer token as an Authorization header, as any self-hosted registry expects', async () => {
    const registry = await listeningRegistry();
    try {
      const client = createRegistryClient(
        loadRegistryLibrary(),
        configOf(registry.url, { bearerToken: 't0ken' }),
        10,
      );
      assert.deepEqual(await client.getAllSubjects(), ['orders-value']);
      assert.equal(registry.seen[0]?.authorization, 'Bearer t0ken');
    } finally {
      await registry.close();
    }
  });

  it('sends a user and password as basic auth', async () => {
    const registry = await listeningRegistry();
    try {
      const client = createRegistryClient(
        loadRegistryLibrary(),
        configOf(registry.url, { username: 'ada', password: 's3cret' }),
        10,
      );
      await client.getAllSubjects();
      assert.equal(
        registry.seen[0]?.authorization,
        `Basic ${Buffer.from('ada:s3cret').toString('base64')}`,
      );
    } finally {
      await registry.close();
    }
  });
});
