import type { Client } from '@temporalio/client';
import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import type { Config } from '../config';
import { createPool } from '../db/pool';
import { createKafka } from '../kafka/kafka-client';
import { connectClient } from '../temporal/connection';

/**
 * The connections a command needs, opened on first use so `dlq list` never dials Temporal
 * and `orders list` never dials Kafka; close() releases whatever was opened.
 */
export class OpsContext {
  private client?: Promise<Client>;
  private pool?: pg.Pool;
  private kafka?: Kafka;

  constructor(readonly config: Config) {}

  temporal(): Promise<Client> {
    this.client ??= connectClient(this.config);
    return this.client;
  }

  /** A pool whose search_path is DATABASE_SCHEMA (ledger and inventory tables). */
  db(): pg.Pool {
    this.pool ??= createPool(this.config.database);
    return this.pool;
  }

  kafkaClient(): Kafka {
    this.kafka ??= createKafka(this.config.kafka, 'ops');
    return this.kafka;
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => undefined);
    await client?.connection.close().catch(() => undefined);
    await this.pool?.end().catch(() => undefined);
  }
}
