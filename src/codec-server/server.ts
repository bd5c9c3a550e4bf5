import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** Options of the codec server (the Web UI's remote codec: POST /encode and /decode). */
export interface CodecServerOptions {
  /**
   * The codec for one namespace: payloads are bound to their namespace (associated data), so
   * each request is decoded as the namespace it names (`X-Namespace`, default `namespace`).
   */
  codecFor: (namespace: string) => PayloadCodec;
  /** The only origin browsers may call from (CORS), e.g. http://127.0.0.1:8233. */
  corsOrigin: string;
  /** Required bearer token; undefined = no authentication (loopback dev use only). */
  token?: string;
  /** Namespace whose payloads this server decodes; other X-Namespace values are refused. */
  namespace: string;
  /** Interface to bind. Default: 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. Default: 0. */
  port?: number;
  /** Largest accepted request body. Default: 8 MiB. */
  maxBodyBytes?: number;
  /** One line per request refused or failed (never payload contents). */
  onProblem?: (problem: { status: number; reason: string; path: string }) => void;
}

export interface RunningCodecServer {
  /** e.g. http://127.0.0.1:8089 (no trailing slash). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The Web UI's JSON form of a payload: metadata values and data in base64. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

function fromJson(p: JsonPayload): Payload {
  if (p === null || typeof p !== 'object') throw new RequestError(400, 'payload must be an object');
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) {
    if (typeof v !== 'string') throw new RequestError(400, 'metadata values must be base64');
    metadata[k] = Buffer.from(v, 'base64');
  }
  if (p.data !== undefined && typeof p.data !== 'string') {
    throw new RequestError(400, 'data must be base64');
  }
  return { metadata, data: Buffer.from(p.data ?? '', 'base64') };
}

function toJson(p: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) {
    metadata[k] = Buffer.from(v).toString('base64');
  }
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}

async function readBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new RequestError(413, 'body too large');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new RequestError(400, 'body is not JSON');
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether `host` only accepts connections from this machine: 127.0.0.0/8, ::1 (also as
 * ::ffff:127.x) or `localhost`. Anything else (0.0.0.0, ::, a LAN or container address) is
 * reachable by others.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return v4 !== null && v4.slice(1).every((o) => Number(o) <= 255) && v4[1] === '127';
}

/**
 * The remote codec the Temporal Web UI (and `temporal` CLI) calls to show decrypted payloads.
 * Closed by default: loopback, one CORS origin, a bearer token, one namespace.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  const host = options.host ?? '127.0.0.1';
  if (options.token === undefined && !isLoopbackHost(host)) {
    // The config check (checkCodecServerConfig) names the setting; this is the backstop for
    // any other caller.
    throw new Error(`codec server without a token must bind a loopback address, not ${host}`);
  }
  const limit = options.maxBodyBytes ?? 8 << 20;
  const onProblem = options.onProblem ?? (() => undefined);

  const corsHeaders = (req: IncomingMessage): Record<string, string> =>
    req.headers.origin === options.corsOrigin
      ? {
          'access-control-allow-origin': options.corsOrigin,
          'access-control-allow-credentials': 'true',
          'access-control-allow-methods': 'POST, OPTIONS',
          'access-control-allow-headers':
            req.headers['access-control-request-headers'] ??
            'content-type, x-namespace, authorization',
          'access-control-max-age': '600',
          vary: 'Origin',
        }
      : { vary: 'Origin' };

  const send = (req: IncomingMessage, res: ServerResponse, status: number, body?: unknown) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, {
      ...corsHeaders(req),
      ...(text ? { 'content-type': 'application/json' } : {}),
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://codec').pathname.replace(/\/+$/, '');
    const origin = req.headers.origin;
    // A browser on another origin gets nothing, not even a preflight answer.
    if (origin !== undefined && origin !== options.corsOrigin) {
      throw new RequestError(403, 'origin not allowed');
    }
    if (req.method === 'OPTIONS') return send(req, res, 204);
    if (req.method !== 'POST' || (path !== '/encode' && path !== '/decode')) {
      throw new RequestError(404, 'POST /encode or /decode');
    }
    if (options.token !== undefined) {
      const auth = req.headers.authorization ?? '';
      const given = auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
      if (!sameSecret(given, options.token)) throw new RequestError(401, 'bearer token required');
    }
    const asked = req.headers['x-namespace'];
    if (asked !== undefined && asked !== options.namespace) {
      throw new RequestError(403, 'namespace not served here');
    }
    const codec = options.codecFor(options.namespace);
    const body = (await readBody(req, limit)) as { payloads?: unknown };
    if (!body || !Array.isArray(body.payloads)) {
      throw new RequestError(400, 'body must be {"payloads": [...]}');
    }
    const payloads = (body.payloads as JsonPayload[]).map(fromJson);
    const out =
      path === '/encode'
        ? await codec.encode(payloads)
        : await codec.decode(payloads).catch((err: unknown) => {
            throw new RequestError(422, (err as Error).message);
          });
    send(req, res, 200, { payloads: out.map(toJson) });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = err instanceof RequestError ? err.status : 500;
      const reason = err instanceof RequestError ? err.message : 'internal error';
      onProblem({ status, reason, path: req.url ?? '' });
      if (!res.headersSent) send(req, res, status, { error: reason });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
