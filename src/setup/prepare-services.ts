import type { Config } from '../config';
import { createPool } from '../db/pool';
import { migrate } from '../db/migrate';
import { createKafka } from '../kafka/kafka-client';
import { ensureTopics } from '../kafka/topics';
import { createLogger } from '../logger';
import { DOMAINS } from '../domains';
import type { Domain } from '../engine/define-domain';
import { publishTopicOf } from '../engine/registry';

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
 * Brings the services to what onceflow needs: schema migrations applied, source and DLQ
 * topics present, and the topics the registered domains publish to. Idempotent; run by the
 * dev stack, the demo, the tests and `npm run setup`.
 */
export async function prepareServices(
  config: Config,
  domains: readonly Domain[] = DOMAINS,
): Promise<PrepareResult> {
  const pool = createPool(config.database);
  try {
    const [migrationsApplied, topicsCreated] = await Promise.all([
      migrate(pool, { schema: config.database.schema }),
      ensureTopics(createKafka(config.kafka, 'setup'), {
        topics: [...config.kafka.topics, ...publishedTopics(config, domains)],
        partitions: config.kafka.partitions,
        dlqRetentionMs: config.bridge.dlqRetentionDays * 24 * 60 * 60 * 1000,
        log: createLogger('setup', config.logLevel),
      }),
    ]);
    return { migrationsApplied, topicsCreated };
  } finally {
    await pool.end();
  }
}
