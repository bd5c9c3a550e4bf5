import type { DataConverter } from '@temporalio/common';
import { requireEncryptionKey, type Config } from '../config';
import { EncryptionCodec } from './encryption-codec';

/**
 * The one data converter of every onceflow process that talks to Temporal (bridge, worker, ops
 * CLI, reconcile, demo, chaos, tests): payloads AES-256-GCM encrypted with the configured key
 * ring, bound to TEMPORAL_NAMESPACE, strict when ONCEFLOW_ENCRYPTION_STRICT says so. Failure
 * messages and stack traces stay plaintext (the SDK encodes them only through a failure
 * converter loaded inside the workflow bundle), so activities keep personal data out of error
 * messages instead. Throws ConfigError without a key unless encryption was turned off by name
 * (ONCEFLOW_ENCRYPTION=off): then the SDK's defaults apply.
 */
export function dataConverterFor(
  config: Pick<Config, 'encryption'> & { temporal: Pick<Config['temporal'], 'namespace'> },
): DataConverter {
  requireEncryptionKey(config);
  const ring = config.encryption.ring;
  if (!ring) return {};
  return {
    payloadCodecs: [
      new EncryptionCodec(ring, {
        namespace: config.temporal.namespace,
        strict: config.encryption.strict,
      }),
    ],
  };
}
