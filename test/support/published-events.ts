import type { KafkaMessage } from 'kafkajs';
import { createKafka } from '../../src/kafka/kafka-client';
import { readTopicsToEnd } from '../../src/kafka/topic-reader';
import { testConfig, uniqueName } from './services';

/** One record a publishing step wrote: its key, headers as text, value parsed. */
export interface PublishedEvent {
  key: string | null;
  headers: Record<string, string>;
  value: unknown;
}

/** Every record of `topic` as it stands now. */
export async function readPublished(topic: string): Promise<PublishedEvent[]> {
  const out: PublishedEvent[] = [];
  await readTopicsToEnd(
    createKafka(testConfig().kafka, 'test'),
    [topic],
    (_t, _p, m: KafkaMessage) =>
      out.push({
        key: m.key?.toString() ?? null,
        headers: Object.fromEntries(
          Object.entries(m.headers ?? {}).map(([k, v]) => [k, String(Array.isArray(v) ? v[0] : v)]),
        ),
        value: m.value ? JSON.parse(m.value.toString()) : null,
      }),
    { groupId: uniqueName('read-published'), timeoutMs: 30_000 },
  );
  return out;
}
