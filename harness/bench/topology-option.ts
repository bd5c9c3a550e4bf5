/**
 * `--temporal dev|server` and `--kafka-brokers 1|3` of the benchmarks: the stack topology
 * they start (harness/stack/topology.ts), so the same bench runs on the dev server and on the
 * production topology. An option given overrides ONCEFLOW_TEMPORAL / ONCEFLOW_KAFKA_BROKERS;
 * an option left out keeps the environment's setting (default: dev server, one broker).
 *
 *   npm run bench -- --only drain --temporal server --kafka-brokers 3
 */
import { readTopology, topologySettings, type StackTopology } from '../stack/topology';
import {
  describeExtraDynamicConfig,
  DYNAMIC_CONFIG_SETTING,
} from '../stack/temporal-dynamic-config';

/** parseArgs options of the topology. */
export const TOPOLOGY_OPTIONS = {
  temporal: { type: 'string' },
  'kafka-brokers': { type: 'string' },
} as const;

/**
 * Puts the options into this process's environment, where startStack reads the topology,
 * and returns the topology (validated: a bad value stops the bench naming the setting).
 */
export function applyTopologyOptions(values: {
  temporal?: string;
  'kafka-brokers'?: string;
}): StackTopology {
  if (values.temporal !== undefined) process.env.ONCEFLOW_TEMPORAL = values.temporal;
  if (values['kafka-brokers'] !== undefined)
    process.env.ONCEFLOW_KAFKA_BROKERS = values['kafka-brokers'];
  return readTopology(process.env);
}

/** `Temporal server, 3 Kafka brokers (ONCEFLOW_TEMPORAL=server ONCEFLOW_KAFKA_BROKERS=3)`. */
export function describeTopology(t: StackTopology): string {
  const temporal =
    t.temporal === 'server'
      ? 'Temporal server (PostgreSQL, 4 history shards)'
      : 'Temporal dev server (SQLite, 1 shard)';
  const brokers =
    t.kafkaBrokers === 3 ? 'three Kafka brokers (RF 3, min ISR 2)' : 'one Kafka broker';
  const extra = describeExtraDynamicConfig();
  const dynamic = extra ? `, Temporal dynamic config ${extra} (${DYNAMIC_CONFIG_SETTING})` : '';
  return `${temporal}, ${brokers} (${topologySettings(t)})${dynamic}`;
}
