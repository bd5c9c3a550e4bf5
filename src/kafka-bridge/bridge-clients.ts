// The bridge's two Kafka clients, configured for what the bridge promises: an idempotent DLQ
// producer that never auto-creates a topic, and a read_committed consumer that always restarts.
import { Partitioners, type Consumer, type Kafka, type Producer } from 'kafkajs';
import type pg from 'pg';
import type { Config } from '../config';
import { createRegistryDecoder, type RegistryDecoder } from '../kafka/registry-decoder';
import { createRegistryProbe } from '../kafka/registry-probe';
import { SCHEMA_REGISTRY_SETTING } from '../events/message-value';
import { SchemaMisses } from './schema-misses';
import type { Logger } from '../logger';
import { classifyError } from './classify-error';
import { OPERATOR_FAULTS } from './error-codes';
import { adviseFault, type FaultContext } from './fault-advice';
import type { BridgeMetrics } from './metrics';

/**
 * The DLQ producer. Idempotent: a retried DLQ write after a lost ack is not written twice.
 * The DLQ keeps the source key, so the default (murmur2, Java-compatible) partitioner puts one
 * order's poison in one DLQ partition.
 */
export function createDlqProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
    // A DLQ topic is created at start (dlq-topics.ts) or by setup, with the DLQ's retention
    // and size: one the broker created on first write would have the broker's defaults. One
    // deleted later fails the write as topic-missing and the partition stalls until it exists.
    allowAutoTopicCreation: false,
  });
}

/** Options of createBridgeConsumer. */
export interface BridgeConsumerOptions {
  groupId: string;
  /** Consumer-group session timeout; the heartbeat runs at a tenth of it, at most 3 s. */
  sessionTimeoutMs: number;
  metrics: BridgeMetrics;
  log: Logger;
  faultContext: FaultContext;
}

/** The bridge's consumer (manual commits are set by `run` in bridge.ts). */
export function createBridgeConsumer(kafka: Kafka, options: BridgeConsumerOptions): Consumer {
  const { metrics, log, faultContext } = options;
  return kafka.consumer({
    groupId: options.groupId,
    sessionTimeout: options.sessionTimeoutMs,
    // Several heartbeats fit in one session, so one late heartbeat does not cost the partitions.
    heartbeatInterval: Math.min(3_000, Math.floor(options.sessionTimeoutMs / 10)),
    // One partition's batch is at most this much; bounds memory and time per commit.
    maxBytesPerPartition: 1024 * 1024,
    // read_committed (KafkaJS's default, stated because it matters): a record of an aborted
    // transaction must never start anything, and one of an open transaction only once it
    // commits. kafka-fetch-patch.ts makes KafkaJS's filtering exact.
    readUncommitted: false,
    // KafkaJS restarts the consumer only after retriable errors by default; a broker that is
    // down longer than its retries would leave the bridge idle. Always restart: offsets are
    // only committed for handled messages, so a restart loses and repeats nothing harmful.
    retry: {
      restartOnFailure: async (err) => {
        metrics.consumerRestarts.inc();
        const classification = classifyError(err);
        const fault = classification.fault;
        if (classification.kind === 'transient' && fault) {
          // The consumer's own Kafka refuses it (an ACL on the source topic or the group,
          // credentials): the partitions stall while it restarts; say so, and what to fix.
          metrics.transientRetries.inc({ dependency: 'kafka', fault });
          if (OPERATOR_FAULTS.has(fault)) {
            log.error(
              { err: err.message, dependency: 'kafka', fault, code: classification.code },
              adviseFault({ dependency: 'kafka', err, classification, context: faultContext }),
            );
            return true;
          }
        }
        log.warn({ err: err.message }, 'consumer failed; restarting');
        return true;
      },
    },
  });
}

/**
 * The role the pool logs in as (never its password), for naming it in a fix: the pool's own
 * user or connection string's, as pg reads them.
 */
export function databaseRoleOf(pool: pg.Pool): string | undefined {
  const options = (pool as unknown as { options?: { user?: string; connectionString?: string } })
    .options;
  if (options?.user) return options.user;
  try {
    const user = decodeURIComponent(new URL(options?.connectionString ?? '').username);
    return user || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The registry decoder (the one given, else one for SCHEMA_REGISTRY_URL when set) and the
 * judge of schema IDs it does not know: a value naming one is the message's fault once the
 * registry has shown it answers, after BRIDGE_SCHEMA_UNKNOWN_AFTER (schema-misses.ts).
 */
export function registryOf(
  config: Config,
  given?: RegistryDecoder,
): { registry?: RegistryDecoder; schemaMisses?: SchemaMisses } {
  const registry =
    given ?? (config.schemaRegistry ? createRegistryDecoder(config.schemaRegistry) : undefined);
  if (!registry) return {};
  const schemaMisses = new SchemaMisses({
    afterMs: config.bridge.schemaUnknownAfterMs,
    probe: config.schemaRegistry
      ? createRegistryProbe(config.schemaRegistry)
      : () => Promise.reject(new Error(`${SCHEMA_REGISTRY_SETTING} is not set`)),
  });
  return { registry, schemaMisses };
}
