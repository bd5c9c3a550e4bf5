// Kafka, as the engine's activities see it: one idempotent producer per worker, connected on
// first use, and `publishEvent`, the step that publishes a domain's event (the transactional
// outbox's seam: producing is a foreign effect like any other). The event ID is the step's
// key, the record key the entity, so however often the step runs (a worker killed after the
// send, an operator's retry, a replay), a consumer keyed by event ID acts once.
import { ApplicationFailure } from '@temporalio/common';
import { Partitioners, type ICustomPartitioner, type Message, type Producer } from 'kafkajs';
import type { Config } from '../config';
import { HEADER, MAX_ID_LENGTH } from '../events/envelope';
import { createKafka } from '../kafka/kafka-client';
import { sha256Hex } from '../util/sha256';
import { createPublishBatcher } from './publish-batcher';
import type { PublishEventInput, PublishEventResult } from './publish-contract';
import { KAFKA_UNAVAILABLE, type TransientFailureDetails } from './transient-failure';

/** Failure types of publishEvent. */
export const PUBLISH_FAILURES = {
  /** Kafka answered with an error a retry may resolve (no leader, timeout, not enough replicas). */
  unavailable: KAFKA_UNAVAILABLE,
  /** Kafka refused the record for good (too large, not authorised, unknown topic). */
  rejected: 'EventRejected',
} as const;

/**
 * Largest value sent: Kafka's default `max.message.bytes` (1 MiB) less room for the batch's
 * headers; a larger event would be refused by the broker after a round trip.
 */
export const MAX_EVENT_BYTES = 1_000_000;

/** One producer for a worker's publishing steps; connected on first use. */
export interface EventProducer {
  producer(): Promise<Producer>;
  close(): Promise<void>;
  /**
   * The partition the producer's partitioner gave a record of its last send, which lets
   * records share a request (publish-batcher.ts). A producer without it sends one per request.
   */
  partitionOf?(message: Message): number | undefined;
}

/**
 * An idempotent producer (KafkaJS: one request in flight, acks from every in-sync replica) on
 * the configured cluster, connected at the first publish: a worker whose domains publish
 * nothing never connects to Kafka. Its partitioner is KafkaJS's default, and it says which
 * partition each record got, so concurrent publishes share a request (publish-batcher.ts).
 */
export function createEventProducer(kafka: Config['kafka']): EventProducer {
  let connected: Promise<Producer> | undefined;
  // KafkaJS's default partitioner (murmur2 of the key, as Java's), remembered per record.
  const assigned = new WeakMap<Message, number>();
  const createPartitioner: ICustomPartitioner = () => {
    const partition = Partitioners.DefaultPartitioner();
    return (args) => {
      const p = partition(args);
      assigned.set(args.message, p);
      return p;
    };
  };
  return {
    partitionOf: (message) => assigned.get(message),
    producer: () =>
      (connected ??= (async () => {
        const p = createKafka(kafka, 'publisher').producer({
          idempotent: true,
          maxInFlightRequests: 1,
          createPartitioner,
        });
        await p.connect();
        return p;
      })().catch((err: unknown) => {
        connected = undefined;
        throw err;
      })),
    close: async () => {
      const p = connected;
      connected = undefined;
      if (p) await (await p.catch(() => undefined))?.disconnect();
    },
  };
}

/** The event ID of a step key: the key itself when it fits the event contract, else hashed. */
export function eventIdOf(key: string): string {
  if (key.length <= MAX_ID_LENGTH) return key;
  return `${key.slice(0, MAX_ID_LENGTH - 33)}~${sha256Hex(key).slice(0, 32)}`;
}

export interface PublishDeps {
  producer: EventProducer;
  /** The topic of a domain's event type (defineDomain's `publishes`), or undefined. */
  topicOf(domain: string, eventType: string): string | undefined;
  /** ORDER_TRANSIENT_RETRY_WINDOW in ms: how long the step waits out Kafka being unavailable. */
  transientRetryWindowMs: number;
  /** ORDER_TRANSIENT_RETRY_INTERVAL in ms, when configured. */
  transientRetryIntervalMs?: number;
}

export function createPublishActivities(deps: PublishDeps) {
  // One batcher per worker's producer: steps publishing at once share a request.
  const batcher = createPublishBatcher({
    producer: () => deps.producer.producer(),
    ...(deps.producer.partitionOf ? { partitionOf: (m) => deps.producer.partitionOf!(m) } : {}),
  });
  const rejected = (message: string, input: PublishEventInput) =>
    ApplicationFailure.create({
      type: PUBLISH_FAILURES.rejected,
      message,
      nonRetryable: true,
      details: [{ eventType: input.eventType, key: input.key }],
    });
  return {
    /** Publishes one event with the onceflow envelope's headers; answers where it went. */
    async publishEvent(input: PublishEventInput): Promise<PublishEventResult> {
      const topic = deps.topicOf(input.domain, input.eventType);
      if (!topic)
        throw rejected(
          `domain ${input.domain} names no topic for ${input.eventType} (defineDomain publishes)`,
          input,
        );
      if (input.entityId.length > MAX_ID_LENGTH)
        throw rejected(`entity ID longer than ${MAX_ID_LENGTH} characters`, input);
      const eventId = eventIdOf(input.key);
      const value = JSON.stringify({ data: input.data });
      const bytes = Buffer.byteLength(value);
      if (bytes > MAX_EVENT_BYTES)
        throw rejected(`${input.eventType} is ${bytes} bytes, above ${MAX_EVENT_BYTES}`, input);
      try {
        const sent = await batcher.send(topic, {
          key: input.entityId,
          value,
          headers: {
            [HEADER.eventId]: eventId,
            [HEADER.eventType]: input.eventType,
            [HEADER.aggregateId]: input.entityId,
            [HEADER.contentType]: 'application/json',
          },
        });
        return { eventId, topic, ...sent };
      } catch (err) {
        // KafkaJS says which of its errors a retry may resolve; the rest are the record's.
        if ((err as { retriable?: boolean }).retriable === false)
          throw rejected(`Kafka refused ${input.eventType}: ${(err as Error).message}`, input);
        const details: TransientFailureDetails = {
          transient: true,
          windowMs: deps.transientRetryWindowMs,
          ...(deps.transientRetryIntervalMs !== undefined
            ? { intervalMs: deps.transientRetryIntervalMs }
            : {}),
          endpoint: `Kafka topic ${topic}`,
          key: input.key,
        };
        throw ApplicationFailure.create({
          type: PUBLISH_FAILURES.unavailable,
          message: `publishing ${input.eventType} to ${topic}: ${(err as Error).message}`,
          nonRetryable: false,
          details: [details],
          cause: err as Error,
        });
      }
    },
  };
}
