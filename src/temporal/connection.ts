import { readFileSync } from 'node:fs';
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import type { Config } from '../config';
import { dataConverterFor } from './data-converter';
import { clientTracingInterceptors } from '../tracing/client';
import { cancellableGrpcRetry } from './grpc-retry';

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

/**
 * Options of a client connection: the shared ones, and a gRPC retry that a cancel stops (an
 * abandoned call never dials again on a connection closed since).
 */
export function clientConnectionOptions(temporal: Config['temporal']): ConnectionOptions {
  return { ...temporalConnectionOptions(temporal), interceptors: [cancellableGrpcRetry()] };
}

/**
 * A client on an open connection, with the configured namespace and the encrypting data
 * converter: every Client in onceflow (and its tests) is made here.
 */
export function createClient(
  connection: Connection,
  config: Pick<Config, 'temporal' | 'encryption'>,
): Client {
  return new Client({
    connection,
    namespace: config.temporal.namespace,
    dataConverter: dataConverterFor(config),
    // Starts carry the caller's trace into the workflow's headers (tracing on only).
    interceptors: { workflow: clientTracingInterceptors() },
  });
}

/** A Temporal client for starting, signalling and describing workflows. */
export async function connectClient(
  config: Pick<Config, 'temporal' | 'encryption'>,
): Promise<Client> {
  const converter = dataConverterFor(config); // no key: fail before dialling
  const connection = await Connection.connect(clientConnectionOptions(config.temporal));
  return new Client({
    connection,
    namespace: config.temporal.namespace,
    dataConverter: converter,
    interceptors: { workflow: clientTracingInterceptors() },
  });
}
