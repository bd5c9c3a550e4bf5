import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { loadConfig } from '../../../src/config';
import { createPool } from '../../../src/db/pool';
import { ensureAptPackages } from '../../../harness/stack/apt';
import { runCommand } from '../../../harness/stack/run-command';

/** A Postgres ErrorResponse (FATAL, SQLSTATE 28000) carrying `message`. */
function errorResponse(message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0C28000\0M${message}\0\0`);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/**
 * The TLS half of a Postgres server on loopback: answers the client's SSLRequest with `S`,
 * completes a TLS handshake with `cert` (issued for a name that is NOT 127.0.0.1), then
 * refuses the login with a recognisable message. A client that reaches that message
 * accepted the certificate; one that checks the host name stops at the handshake.
 */
async function startTlsOnlyPostgres(key: Buffer, cert: Buffer): Promise<Server> {
  const server = createServer((socket: Socket) => {
    socket.once('data', () => {
      // SSLRequest (8 bytes): say yes, then speak TLS on the same socket.
      socket.write('S');
      const tls = new TLSSocket(socket, { isServer: true, key, cert });
      tls.once('data', () => tls.end(errorResponse('handshake accepted by the client')));
      tls.on('error', () => undefined);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
}

async function connectError(env: NodeJS.ProcessEnv): Promise<string> {
  const pool = createPool(loadConfig(env).database);
  try {
    await pool.query('SELECT 1');
    return 'connected';
  } catch (err) {
    return `${(err as NodeJS.ErrnoException).code ?? ''} ${(err as Error).message}`;
  } finally {
    await pool.end();
  }
}

describe('DATABASE_SSL verifies the host name (issue 23)', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'onceflow-pg-tls-'));
  let server: Server;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    await ensureAptPackages({ openssl: 'openssl' }, () => undefined);
    // A self-signed certificate for db.example.test only; it is its own CA.
    await runCommand('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=db.example.test',
      '-addext',
      'subjectAltName=DNS:db.example.test',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    const cert = readFileSync(join(dir, 'cert.pem'));
    server = await startTlsOnlyPostgres(readFileSync(join(dir, 'key.pem')), cert);
    const { port } = server.address() as AddressInfo;
    env = {
      DATABASE_URL: `postgres://onceflow@127.0.0.1:${port}/onceflow`,
      DATABASE_SSL_CA_PATH: join(dir, 'cert.pem'),
      DATABASE_CONNECT_TIMEOUT_MS: '10000',
    };
  });
  after(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('`require` refuses a trusted certificate issued for another host', async () => {
    const error = await connectError({ ...env, DATABASE_SSL: 'require' });
    assert.match(error, /ERR_TLS_CERT_ALTNAME_INVALID|does not match certificate/, error);
  });

  it('`verify-full` does the same', async () => {
    const error = await connectError({ ...env, DATABASE_SSL: 'verify-full' });
    assert.match(error, /ERR_TLS_CERT_ALTNAME_INVALID|does not match certificate/, error);
  });

  it('`verify-ca` checks the chain only: the same certificate passes the handshake', async () => {
    const error = await connectError({ ...env, DATABASE_SSL: 'verify-ca' });
    assert.match(error, /handshake accepted by the client/, error);
  });

  it('no mode accepts a certificate from an unknown CA', async () => {
    const withoutCa = { ...env, DATABASE_SSL_CA_PATH: undefined };
    for (const mode of ['require', 'verify-ca', 'verify-full']) {
      const error = await connectError({ ...withoutCa, DATABASE_SSL: mode });
      assert.match(error, /self[- ]signed|unable to verify|SELF_SIGNED/i, `${mode}: ${error}`);
    }
  });
});
