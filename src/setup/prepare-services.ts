import type { Config } from '../config';
import { createPool } from '../db/pool';
import { migrate } from '../db/migrate';
import { createKafka } from '../kafka/kafka-client';
import { ensureTopics } from '../kafka/topics';
import { createLogger } from '../logger';

export interface PrepareResult {
  migrationsApplied: number[];
  topicsCreated: string[];
}

/**
 * Brings the services to what onceflow needs: schema migrations applied, source and DLQ
 * topics present. Idempotent; run by the dev stack, the demo, the tests and `npm run setup`.
 */
export async function prepareServices(config: Config): Promise<PrepareResult> {
  const pool = createPool(config.database);
  try {
    const [migrationsApplied, topicsCreated] = await Promise.all([
      migrate(pool, { schema: config.database.schema }),
      ensureTopics(createKafka(config.kafka, 'setup'), {
        topics: config.kafka.topics,
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
