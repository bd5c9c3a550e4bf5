import { strict as assert } from 'node:assert';
import type { IHeaders } from 'kafkajs';
import { buildDlqMessage } from '../../src/events/dlq-message';
import { dlqTopicOf } from '../../src/events/dlq-topic';
import type { PoisonReason } from '../../src/events/poison';
import { readTopicsToEnd } from '../../src/kafka/topic-reader';
import { REPLAY_OF_HEADER } from '../../src/ops/dlq-entries';
import { replayGroupId } from '../../src/ops/dlq-replay-marks';
import type { BridgeHarness } from './bridge-harness';
import { runOps, type OpsRun } from './ops-cli';
import { uniqueName } from './services';

/** One record as read back from a topic. */
export interface ReadRecord {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}

/**
 * What the `dlq replay` tests share, on one harness (its own topic, DLQ, schema and consumer
 * group, so the tests run in any order): DLQ entries written by the bridge's own DLQ writer,
 * the CLI with the harness' environment, and what a replay put on a source topic.
 */
export class DlqReplayFixture {
  readonly dlqTopic: string;

  constructor(readonly h: BridgeHarness) {
    this.dlqTopic = dlqTopicOf(h.topic);
  }

  /** The CLI's environment: this harness' topic, schema and group (whose legacy marks it reads). */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      KAFKA_TOPICS: this.h.topic,
      DATABASE_SCHEMA: this.h.schema,
      KAFKA_GROUP_ID: this.h.groupId,
      ...extra,
    };
  }

  /**
   * Writes `count` DLQ records as the bridge writes them (buildDlqMessage), all to partition 0
   * of the DLQ, in order. Each is a poison message `unparseable` from `sourceTopic`.
   */
  async deadLetter(
    count: number,
    options: { sourceTopic?: string; reason?: PoisonReason; valueBytes?: number } = {},
  ): Promise<void> {
    const producer = this.h.kafka.producer();
    await producer.connect();
    try {
      const messages = Array.from({ length: count }, (_, i) => {
        const key = uniqueName('poison');
        const record = buildDlqMessage({
          message: {
            key: Buffer.from(key),
            value: Buffer.from(`not json ${key} `.padEnd(options.valueBytes ?? 40, `${i}`)),
            headers: { 'event-type': 'OrderPlaced' },
          },
          topic: options.sourceTopic ?? this.h.topic,
          partition: 0,
          offset: String(i),
          reason: options.reason ?? 'unparseable',
          error: 'Unexpected token',
          failedAt: new Date(),
        });
        return { ...record.message, partition: 0 };
      });
      await producer.send({ topic: this.dlqTopic, acks: -1, messages });
    } finally {
      await producer.disconnect();
    }
  }

  /** `dlq replay <args> --json`; asserts the exit code unless `expectCode` is null. */
  async replay(args: string[], env: Record<string, string> = {}, expectCode: number | null = 0) {
    const run = await runOps(['dlq', 'replay', '--json', ...args], this.env(env));
    if (expectCode !== null) assert.equal(run.code, expectCode, `${run.stdout}\n${run.stderr}`);
    return run;
  }

  /** `dlq list --json` (every entry). */
  async list(env: Record<string, string> = {}): Promise<OpsRun> {
    const run = await runOps(['dlq', 'list', '--json', '--limit', '100000'], this.env(env));
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    return run;
  }

  /** Every record of `topic` from the beginning to its end now. */
  async read(topic: string): Promise<ReadRecord[]> {
    const out: ReadRecord[] = [];
    await readTopicsToEnd(
      this.h.kafka,
      [topic],
      (_t, _p, m) =>
        out.push({ offset: m.offset, key: m.key, value: m.value, headers: m.headers ?? {} }),
      { groupId: uniqueName('test-read'), timeoutMs: 60_000 },
    );
    return out;
  }

  /** How many replayed copies of each DLQ entry `topic` holds, by `topic/partition/offset`. */
  async copies(topic: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const r of await this.read(topic)) {
      const of = r.headers[REPLAY_OF_HEADER]?.toString();
      if (of !== undefined) out.set(of, (out.get(of) ?? 0) + 1);
    }
    return out;
  }

  /** The replay-of name of DLQ entry `offset` (partition 0). */
  entry(offset: number): string {
    return `${this.dlqTopic}/0/${offset}`;
  }

  /**
   * Sets the consumer-group marks the CLI kept before its marks moved to Postgres: the group
   * `<KAFKA_GROUP_ID>.dlq-replayed.*` committed at `end` on DLQ partition 0.
   */
  async setLegacyMark(end: number): Promise<void> {
    const admin = this.h.kafka.admin();
    await admin.connect();
    try {
      await admin.setOffsets({
        groupId: replayGroupId(this.h.groupId, undefined),
        topic: this.dlqTopic,
        partitions: [{ partition: 0, offset: String(end) }],
      });
    } finally {
      await admin.disconnect();
    }
  }

  /**
   * What Kafka does to those marks after `offsets.retention.minutes` (7 days): they are gone.
   * Deletes every `<KAFKA_GROUP_ID>.dlq-replayed.*` group, without waiting a week.
   */
  async expireLegacyMarks(): Promise<string[]> {
    const admin = this.h.kafka.admin();
    await admin.connect();
    try {
      const prefix = `${this.h.groupId}.dlq-replayed.`;
      const { groups } = await admin.listGroups();
      const ours = groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
      if (ours.length > 0) await admin.deleteGroups(ours);
      return ours;
    } finally {
      await admin.disconnect();
    }
  }
}

/** A JSON object as the CLI prints it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

/** Entries of `dlq list --json` by offset (one DLQ partition). */
export function byOffset(list: OpsRun): Map<number, Json> {
  return new Map((list.json.messages as Json[]).map((m) => [Number(m.offset), m]));
}
