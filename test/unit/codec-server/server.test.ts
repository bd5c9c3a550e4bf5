import { strict as assert } from 'node:assert';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  isLoopbackHost,
  startCodecServer,
  type RunningCodecServer,
} from '../../../src/codec-server/server';
import { checkCodecServerConfig } from '../../../src/codec-server/main';
import { ConfigError, loadConfig } from '../../../src/config';
import { EncryptionCodec } from '../../../src/temporal/encryption-codec';
import { generateKeyLine, parseKeyRing } from '../../../src/config/key-ring';

const UI = 'http://127.0.0.1:8233';
const TOKEN = 'codec-test-token';

describe('codec server', () => {
  let server: RunningCodecServer;
  const ring = parseKeyRing(generateKeyLine('c'), 'T');
  const codecFor = (namespace: string) => new EncryptionCodec(ring, { namespace });

  before(async () => {
    server = await startCodecServer({
      codecFor,
      corsOrigin: UI,
      token: TOKEN,
      namespace: 'default',
    });
  });
  after(() => server.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const auth = { authorization: `Bearer ${TOKEN}`, 'x-namespace': 'default', origin: UI };

  it('binds to loopback by default', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('round-trips the Web UI JSON shape (base64 fields) and answers CORS for the UI only', async () => {
    const plain = defaultPayloadConverter.toPayload({ email: 'codec-unit@example.com' });
    const asJson = {
      metadata: { encoding: Buffer.from(plain.metadata!.encoding!).toString('base64') },
      data: Buffer.from(plain.data!).toString('base64'),
    };
    const enc = await post('/encode', { payloads: [asJson] }, auth);
    assert.equal(enc.status, 200);
    assert.equal(enc.headers.get('access-control-allow-origin'), UI);
    const encoded = (await enc.json()) as { payloads: Array<{ metadata: Record<string, string> }> };
    assert.equal(
      Buffer.from(encoded.payloads[0]!.metadata.encoding!, 'base64').toString(),
      'binary/encrypted',
    );
    const dec = await post('/decode', encoded, auth);
    const decoded = (await dec.json()) as { payloads: (typeof asJson)[] };
    assert.deepEqual(decoded.payloads[0], asJson);

    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin: UI, 'access-control-request-headers': 'content-type,x-namespace' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), UI);
  });

  it('refuses another origin, a missing or wrong token, and another namespace', async () => {
    const evil = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(evil.status, 403);
    assert.equal(evil.headers.get('access-control-allow-origin'), null);
    assert.equal(
      (await post('/decode', { payloads: [] }, { ...auth, origin: 'http://evil.example' })).status,
      403,
    );
    assert.equal((await post('/decode', { payloads: [] }, { origin: UI })).status, 401);
    assert.equal(
      (await post('/decode', { payloads: [] }, { ...auth, authorization: 'Bearer nope' })).status,
      401,
    );
    assert.equal(
      (await post('/decode', { payloads: [] }, { ...auth, 'x-namespace': 'other' })).status,
      403,
    );
    assert.equal((await post('/decode', { nope: 1 }, auth)).status, 400);
  });

  it("decodes as the namespace it serves: another namespace's payload fails authentication", async () => {
    const [sealed] = await codecFor('staging').encode([
      defaultPayloadConverter.toPayload({ email: 'other-ns@example.com' }),
    ]);
    const asJson = {
      metadata: Object.fromEntries(
        Object.entries(sealed!.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
      data: Buffer.from(sealed!.data!).toString('base64'),
    };
    const res = await post('/decode', { payloads: [asJson] }, auth);
    assert.equal(res.status, 422);
    assert.match(((await res.json()) as { error: string }).error, /namespace "default"/);
  });

  it('refuses to run without a token off loopback, whoever starts it', async () => {
    await assert.rejects(
      startCodecServer({ codecFor, corsOrigin: UI, namespace: 'default', host: '0.0.0.0' }),
      /must bind a loopback address, not 0\.0\.0\.0/,
    );
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])
      assert.ok(isLoopbackHost(host), host);
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.5',
      '128.0.0.1',
      'codec.internal',
      '127.0.0.1.nip.io',
    ])
      assert.ok(!isLoopbackHost(host), host);
  });

  it('needs a token unless CODEC_SERVER_AUTH=none, and a key', () => {
    const key = generateKeyLine('k');
    const settings = (env: NodeJS.ProcessEnv) => {
      try {
        checkCodecServerConfig(loadConfig(env));
        return [];
      } catch (err) {
        assert.ok(err instanceof ConfigError);
        return err.problems.map((p) => p.setting);
      }
    };
    assert.deepEqual(settings({ ONCEFLOW_ENCRYPTION_KEYS: key }), ['CODEC_SERVER_TOKEN']);
    assert.deepEqual(settings({ ONCEFLOW_ENCRYPTION_KEYS: key, CODEC_SERVER_TOKEN: 't' }), []);
    assert.deepEqual(settings({ ONCEFLOW_ENCRYPTION_KEYS: key, CODEC_SERVER_AUTH: 'none' }), []);
    assert.deepEqual(settings({ CODEC_SERVER_AUTH: 'none' }), ['ONCEFLOW_ENCRYPTION_KEYS']);
    // `none` off loopback is a named config error, wherever the server runs (not only compose).
    for (const host of ['0.0.0.0', '::', '192.168.1.20'])
      assert.deepEqual(
        settings({
          ONCEFLOW_ENCRYPTION_KEYS: key,
          CODEC_SERVER_AUTH: 'none',
          CODEC_SERVER_HOST: host,
        }),
        ['CODEC_SERVER_AUTH'],
        host,
      );
    assert.deepEqual(
      settings({
        ONCEFLOW_ENCRYPTION_KEYS: key,
        CODEC_SERVER_AUTH: 'none',
        CODEC_SERVER_HOST: '::1',
      }),
      [],
    );
    assert.deepEqual(
      settings({
        ONCEFLOW_ENCRYPTION_KEYS: key,
        CODEC_SERVER_TOKEN: 't',
        CODEC_SERVER_HOST: '0.0.0.0',
      }),
      [],
    );
    assert.equal(loadConfig({}).codecServer.host, '127.0.0.1');
  });
});
