import { readFileSync } from 'node:fs';
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { Config } from '../config';

type TlsOption = ConnectionOptions['tls'];

function tlsOptions(temporal: Config['temporal']): TlsOption {
  const tls = temporal.tls;
  if (!tls) return undefined;
  return {
    serverNameOverride: tls.serverName,
    serverRootCACertificate: tls.caPath ? readFileSync(tls.caPath) : undefined,
    clientCertPair:
      tls.certPath && tls.keyPath
        ? { crt: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) }
        : undefined,
  };
}

/** Options shared by client and worker connections: address, TLS (mTLS or CA), API key. */
export function temporalConnectionOptions(temporal: Config['temporal']): ConnectionOptions {
  return {
    address: temporal.address,
    tls: tlsOptions(temporal),
    apiKey: temporal.apiKey,
  };
}

/** A Temporal client for starting, signalling and describing workflows. */
export async function connectClient(temporal: Config['temporal']): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(temporal));
  return new Client({ connection, namespace: temporal.namespace });
}

/** The worker's native (Rust core) connection, with the same settings as the client's. */
export async function connectWorker(temporal: Config['temporal']): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectionOptions(temporal) as NativeConnectionOptions);
}
