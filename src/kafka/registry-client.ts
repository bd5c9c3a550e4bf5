import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import type { Client } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import type { SchemaRegistryConfig } from '../config/schema-registry';

/**
 * The Schema Registry client library (@confluentinc/schemaregistry: the wire format's owner's),
 * about 300 modules: loaded on the first value to decode, so a bridge that never sees one
 * never carries it.
 */

export type RegistryLibrary =
  typeof import('@confluentinc/schemaregistry/dist/schemaregistry-client') &
    typeof import('@confluentinc/schemaregistry/dist/serde/avro') &
    typeof import('@confluentinc/schemaregistry/dist/serde/json') &
    typeof import('@confluentinc/schemaregistry/dist/serde/serde') &
    typeof import('@confluentinc/schemaregistry/dist/rest-error');

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use (above) */
export function loadRegistryLibrary(): RegistryLibrary {
  const dist = '@confluentinc/schemaregistry/dist';
  return {
    ...(require(`${dist}/schemaregistry-client`) as object),
    ...(require(`${dist}/serde/avro`) as object),
    ...(require(`${dist}/serde/json`) as object),
    ...(require(`${dist}/serde/serde`) as object),
    ...(require(`${dist}/rest-error`) as object),
  } as RegistryLibrary;
}
/* eslint-enable @typescript-eslint/no-require-imports */

function httpsAgentOf(config: SchemaRegistryConfig): Agent | undefined {
  const { caPath, certPath, keyPath } = config.tls;
  if (!caPath && !certPath) return undefined;
  return new Agent({
    ...(caPath ? { ca: readFileSync(caPath) } : {}),
    ...(certPath ? { cert: readFileSync(certPath), key: readFileSync(keyPath!) } : {}),
  });
}

/**
 * A client of the registry `config` names. Its answers are cached (LRU) up to `cacheCapacity`
 * entries per kind of request.
 */
export function createRegistryClient(
  lib: RegistryLibrary,
  config: SchemaRegistryConfig,
  cacheCapacity: number,
): Client {
  const agent = httpsAgentOf(config);
  const auth = config.auth;
  return new lib.SchemaRegistryClient({
    baseURLs: [config.url],
    createAxiosDefaults: {
      timeout: config.timeoutMs,
      ...(agent ? { httpsAgent: agent } : {}),
      // A bearer token as a plain Authorization header: the library's own bearer support is
      // Confluent Cloud's (it refuses a token without a logical cluster and sends that
      // cluster's headers), which a self-hosted registry behind an OAuth proxy has not.
      ...(auth && 'bearerToken' in auth
        ? { headers: { Authorization: `Bearer ${auth.bearerToken}` } }
        : {}),
    },
    ...(auth && 'username' in auth
      ? {
          basicAuthCredentials: {
            credentialsSource: 'USER_INFO',
            userInfo: `${auth.username}:${auth.password}`,
          },
        }
      : {}),
    // The bridge retries with its own backoff, heartbeating, for as long as it takes.
    maxRetries: 0,
    cacheCapacity,
  } as ConstructorParameters<RegistryLibrary['SchemaRegistryClient']>[0]);
}

/** A registry answer (RestError) or a failed request (no response): the environment's. */
export function isRequestFailure(lib: RegistryLibrary, err: unknown): boolean {
  if (err instanceof lib.RestError) return true;
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { isAxiosError?: boolean }).isAxiosError === true
  );
}
