import { createConnection } from 'node:net';
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { Config } from '../config';
import { temporalConnectionOptions } from '../temporal/connection';

/**
 * How long a starting worker waits for Temporal to accept its connection. A server that is
 * restarting while the worker starts (a deploy during a failover) is a wait, not an exit.
 */
export const CONNECT_WAIT_MS = 120_000;

/** How long one TCP probe may take before the native connection is left to decide. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * A refused or reset TCP connection: the server is not listening yet. TLS, address and
 * authentication errors are the operator's and fail at once.
 */
export function isServerNotListening(err: unknown): boolean {
  const message = (err as Error | undefined)?.message ?? '';
  return /ConnectionRefused|Connection refused|Connection reset|ConnectionReset|ECONNREFUSED|ECONNRESET/.test(
    message,
  );
}

/**
 * A server that listens but is not serving yet: gRPC UNAVAILABLE while a restarting Temporal
 * server's frontend waits for its membership ("Frontend is not healthy yet").
 */
export function isServerStarting(err: unknown): boolean {
  return /The service is currently unavailable|Unavailable|not healthy yet/.test(
    (err as Error | undefined)?.message ?? '',
  );
}

/**
 * The SDK shuts its runtime down when a connection attempt fails and nothing else holds it,
 * freeing the Prometheus port; the next attempt creates the runtime again on the same port,
 * which another worker on the host may have taken meanwhile. Only ever seen after a failed
 * attempt: the worker goes on without metrics, as when the port is taken at start.
 */
export function isMetricsPortTaken(err: unknown): boolean {
  return /prometheus metrics exporter: Address already in use/.test((err as Error)?.message ?? '');
}

/**
 * Resolves with null once `address` (host:port, IPv6 host in brackets) accepts a TCP
 * connection, or with the error when it refuses or resets it. Any other outcome (a name that
 * does not resolve, a probe that times out) resolves null too: the native connection then
 * reports the real error.
 */
export function probeListening(
  address: string,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<Error | null> {
  const cut = address.lastIndexOf(':');
  const host = address.slice(0, cut).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(cut + 1));
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: timeoutMs });
    const done = (result: Error | null) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(null));
    socket.once('timeout', () => done(null));
    socket.once('error', (err) => done(isServerNotListening(err) ? err : null));
  });
}

/**
 * The worker's native (Rust core) connection, with the same settings as the client's. Here,
 * not in src/temporal: only a worker process loads @temporalio/worker. Waits up to `waitMs`
 * (default CONNECT_WAIT_MS) while the server is not listening or not serving yet, calling
 * `onWait` each time.
 * Waits with a plain TCP probe: each failed native attempt tears the SDK's runtime down
 * (see isMetricsPortTaken), so the native connection is tried only on a listening port.
 * `onMetricsPortTaken` must install a runtime without the exporter (run-worker's does).
 */
export async function connectWorker(
  temporal: Config['temporal'],
  options: {
    waitMs?: number;
    onWait?: (err: Error) => void;
    connect?: (o: NativeConnectionOptions) => Promise<NativeConnection>;
    probe?: (address: string) => Promise<Error | null>;
    onMetricsPortTaken?: (err: Error) => void;
  } = {},
): Promise<NativeConnection> {
  const connect = options.connect ?? ((o) => NativeConnection.connect(o));
  const probe = options.probe ?? probeListening;
  const deadline = Date.now() + (options.waitMs ?? CONNECT_WAIT_MS);
  for (let attempt = 1; ; attempt++) {
    let failure = await probe(temporal.address);
    if (failure === null) {
      try {
        return await connect(temporalConnectionOptions(temporal) as NativeConnectionOptions);
      } catch (err) {
        if (isMetricsPortTaken(err) && options.onMetricsPortTaken)
          options.onMetricsPortTaken(err as Error);
        else if (!isServerNotListening(err) && !isServerStarting(err)) throw err;
        failure = err as Error;
      }
    }
    if (Date.now() >= deadline) throw failure;
    options.onWait?.(failure);
    // A retry interval, not a synchronisation: 0.5 s, then 1 s, ... at most 5 s.
    await new Promise((r) => setTimeout(r, Math.min(500 * attempt, 5_000)));
  }
}
