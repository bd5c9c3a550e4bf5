import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { Config } from '../config';
import { temporalConnectionOptions } from '../temporal/connection';

/**
 * How long a starting worker waits for Temporal to accept its connection. A server that is
 * restarting while the worker starts (a deploy during a failover) is a wait, not an exit.
 */
export const CONNECT_WAIT_MS = 120_000;

/**
 * A refused or reset TCP connection: the server is not listening yet. TLS, address and
 * authentication errors are the operator's and fail at once.
 */
export function isServerNotListening(err: unknown): boolean {
  const message = (err as Error | undefined)?.message ?? '';
  return /ConnectionRefused|Connection refused|Connection reset|ConnectionReset/.test(message);
}

/**
 * The worker's native (Rust core) connection, with the same settings as the client's. Here,
 * not in src/temporal: only a worker process loads @temporalio/worker. Waits up to `waitMs`
 * (default CONNECT_WAIT_MS) while the server is not listening, calling `onWait` each time.
 */
export async function connectWorker(
  temporal: Config['temporal'],
  options: {
    waitMs?: number;
    onWait?: (err: Error) => void;
    connect?: (o: NativeConnectionOptions) => Promise<NativeConnection>;
  } = {},
): Promise<NativeConnection> {
  const connect = options.connect ?? ((o) => NativeConnection.connect(o));
  const deadline = Date.now() + (options.waitMs ?? CONNECT_WAIT_MS);
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect(temporalConnectionOptions(temporal) as NativeConnectionOptions);
    } catch (err) {
      if (!isServerNotListening(err) || Date.now() >= deadline) throw err;
      options.onWait?.(err as Error);
      // A retry interval, not a synchronisation: 0.5 s, then 1 s, ... at most 5 s.
      await new Promise((r) => setTimeout(r, Math.min(500 * attempt, 5_000)));
    }
  }
}
