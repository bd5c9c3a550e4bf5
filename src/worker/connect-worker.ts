import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { Config } from '../config';
import { temporalConnectionOptions } from '../temporal/connection';

/**
 * The worker's native (Rust core) connection, with the same settings as the client's. Here,
 * not in src/temporal: only a worker process loads @temporalio/worker.
 */
export async function connectWorker(temporal: Config['temporal']): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectionOptions(temporal) as NativeConnectionOptions);
}
