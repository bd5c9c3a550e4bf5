import type { Config } from '../config';
import { createPool } from '../db/pool';
import { migrate } from '../db/migrate';
import { createKafka } from '../kafka/kafka-client';
import { ensureTopics } from '../kafka/topics';
import { createLogger } from '../logger';
import type { Domain } from '../engine/define-domain';
import { publishTopicOf, routesOfDomains } from '../engine/registry';
import { topicsOf } from '../events/routes';
import { DAY_MS } from '../kafka/dlq-topics';

export interface PrepareResult {
  migrationsApplied: number[];
  topicsCreated: string[];
}

/** The topics the domains publish to (each a source of whoever consumes it, with its DLQ). */
export function publishedTopics(config: Config, domains: readonly Domain[]): string[] {
  const topicOf = publishTopicOf(domains, config);
  const topics = domains.flatMap((d) =>
    Object.keys(d.publishes ?? {}).map((type) => topicOf(d.name, type)!),
  );
  return [...new Set(topics)].filter((t) => !config.kafka.topics.includes(t));
}

/**
 * Every topic the domains' bridge reads (KAFKA_TOPICS, and the topics a route names) and the
 * topics they publish to, once each.
 */
export function topicsOfDomains(config: Config, domains: readonly Domain[]): string[] {
  const read = topicsOf(routesOfDomains(domains), config.kafka.topics);
  return [...new Set([...read, ...publishedTopics(config, domains)])];
}

/**
 * Brings the services to what onceflow needs: schema migrations applied, every topic the
 * domains read or publish to present, each with its DLQ topic. Idempotent; run by the dev
 * stack, the demo, the tests, `npm run setup` and `npx onceflow setup`.
 */
export async function prepareServices(
  config: Config,
  domains: readonly Domain[],
): Promise<PrepareResult> {
  const pool = createPool(config.database);
  try {
    const [migrationsApplied, topicsCreated] = await Promise.all([
      migrate(pool, { schema: config.database.schema }),
      ensureTopics(createKafka(config.kafka, 'setup'), {
        topics: topicsOfDomains(config, domains),
        partitions: config.kafka.partitions,
        dlqRetentionMs: config.bridge.dlqRetentionDays * DAY_MS,
        dlqReplicationFactor: config.bridge.dlqReplicationFactor,
        log: createLogger('setup', config.logLevel),
      }),
    ]);
    return { migrationsApplied, topicsCreated };
  } finally {
    await pool.end();
  }
}
