// Whether a Schema Registry answers at all, asked only when it has answered 404 for a value's
// schema ID and decoded nothing lately (src/kafka-bridge/schema-misses.ts): a wrong
// SCHEMA_REGISTRY_URL answers 404 for every ID, and its values must then wait, not be
// dead-lettered. Its client is the decoder's (same URL, credentials and TLS), made on the
// first probe.
import type { SchemaRegistryConfig } from '../config/schema-registry';
import { createRegistryClient, loadRegistryLibrary } from './registry-client';
import { SCHEMA_CACHE_SIZE } from './registry-decoder';

/**
 * A probe of the registry `config` names: lists its subjects (`GET /subjects`, which a
 * principal allowed to read schemas may call; it lists only what that principal may see).
 * Resolves when the registry answered, throws its failure otherwise.
 */
export function createRegistryProbe(config: SchemaRegistryConfig): () => Promise<void> {
  let client: ReturnType<typeof createRegistryClient> | undefined;
  return async () => {
    client ??= createRegistryClient(loadRegistryLibrary(), config, SCHEMA_CACHE_SIZE);
    await client.getAllSubjects();
  };
}
