import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { isPrivilegedRoute, requireAdminToken } from './admin-auth';
import { routeAdmin } from './admin-routes';
import { FaultInjector, type FaultSettings } from './faults';
import { errorBody, HttpError, sendJson } from './http-util';
import type { IdempotencyContext } from './idempotent-request';
import { reapExpiredKeys } from './key-store';
import { routeMail } from './mail-routes';
import { routePayments } from './payment-routes';
import { routeWarehouse } from './warehouse-routes';
import { withServerSpan } from '../../src/tracing/http';

/** Options of the sandbox providers' HTTP service. */
export interface StartProvidersOptions {
  /** Pool whose search_path points at the providers' schema (migrated by the caller). */
  pool: pg.Pool;
  /** Port to listen on; 0 picks a free one (tests). Default: 0. */
  port?: number;
  /** Interface to bind. Default: 127.0.0.1. */
  host?: string;
  /** Lease of an in-flight request before another may take its key over. Default: 10 s. */
  leaseMs?: number;
  /**
   * How long keys and stored responses are kept; a key older than this acts again. Default:
   * 24 h (as Stripe; `npm run providers` passes PROVIDERS_KEY_TTL).
   */
  keyTtlMs?: number;
  /** How often expired keys are reaped; 0 disables the timer. Default: 60 s. */
  reapIntervalMs?: number;
  /** Initial fault settings (seed and per-endpoint faults). Default: seed 1, no faults. */
  faults?: FaultSettings;
  /**
   * Bearer token the admin API and the mail log require; undefined = those routes refused.
   * Default: undefined (closed).
   */
  adminToken?: string;
  /** Called with unexpected errors (logged by the caller). Default: ignore. */
  onError?: (err: unknown) => void;
}

export interface RunningProviders {
  /** Base URL, e.g. http://127.0.0.1:4010 (no trailing slash). */
  url: string;
  port: number;
  faults: FaultInjector;
  close(): Promise<void>;
}

/** Starts the payment, mail, warehouse and carrier sandbox on one HTTP server. */
export async function startProviders(options: StartProvidersOptions): Promise<RunningProviders> {
  const faults = new FaultInjector();
  if (options.faults) faults.configure(options.faults);
  const ctx: IdempotencyContext = {
    pool: options.pool,
    faults,
    timings: { leaseMs: options.leaseMs ?? 10_000, keyTtlMs: options.keyTtlMs ?? 86_400_000 },
  };
  const onError = options.onError ?? (() => undefined);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://providers');
    // Continues the caller's traceparent: the provider's side is in the order's trace.
    await withServerSpan(req, res, url.pathname, () => serve(req, res, url));
  };
  const serve = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    try {
      if (isPrivilegedRoute(req.method, url.pathname)) requireAdminToken(req, options.adminToken);
      const served =
        (await routePayments(ctx, req, res, url)) ||
        (await routeMail(ctx, req, res, url)) ||
        (await routeWarehouse(ctx, req, res, url)) ||
        (await routeAdmin(ctx, req, res, url));
      if (!served)
        sendJson(res, 404, errorBody('not_found', `no route ${req.method} ${url.pathname}`));
    } catch (err) {
      if (err instanceof HttpError)
        return sendJson(res, err.status, errorBody(err.type, err.message));
      onError(err);
      if (!res.headersSent) sendJson(res, 500, errorBody('internal', (err as Error).message));
    }
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const reapEvery = options.reapIntervalMs ?? 60_000;
  const reaper =
    reapEvery > 0
      ? setInterval(() => void reapExpiredKeys(options.pool).catch(onError), reapEvery)
      : undefined;
  reaper?.unref();

  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    faults,
    close: async () => {
      if (reaper) clearInterval(reaper);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
