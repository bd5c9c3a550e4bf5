import type { IHeaders } from 'kafkajs';
import { dlqTopicOf } from '../config';
import type { PoisonReason, RawMessage } from './envelope';

/** DLQ header names (ARCHITECTURE.md, "Bridge behaviour"). */
export const DLQ_HEADER = {
  reason: 'dlq-reason',
  error: 'dlq-error',
  sourceTopic: 'dlq-source-topic',
  sourcePartition: 'dlq-source-partition',
  sourceOffset: 'dlq-source-offset',
  firstFailedAt: 'dlq-first-failed-at',
  /** How many times this payload has been dead-lettered (1 on the first failure). */
  failureCount: 'dlq-failure-count',
} as const;

/** Longest `dlq-error` kept; a full zod report on a 500-line order must not bloat headers. */
export const MAX_DLQ_ERROR_LENGTH = 2000;

export interface BuildDlqMessageInput {
  /** The message as consumed: key, value and headers are copied unchanged. */
  message: RawMessage;
  /** Where it was consumed from. */
  topic: string;
  partition: number;
  /** Kafka offsets are int64 strings in kafkajs. */
  offset: string;
  reason: PoisonReason;
  error: string;
  /** When this failure happened; passed in so the builder stays pure and testable. */
  failedAt: Date;
}

/** A message ready for `producer.send({ topic, messages: [message] })`. */
export interface DlqRecord {
  topic: string;
  message: { key: Buffer | null; value: Buffer | null; headers: IHeaders };
}

function firstText(value: IHeaders[string]): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v.toString('utf8');
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The DLQ record for a poison message: the original key, value and headers plus the dlq-*
 * headers. A message replayed from the DLQ that fails again keeps its `dlq-first-failed-at`
 * (the age of the problem matters to an operator) and counts up `dlq-failure-count`; the
 * other dlq-* headers describe the latest failure.
 */
export function buildDlqMessage(input: BuildDlqMessageInput): DlqRecord {
  const original = input.message.headers ?? {};
  const headers: IHeaders = {};
  for (const [name, value] of Object.entries(original)) {
    // Earlier dlq-* headers are replaced below; an old reason next to a new one would mislead.
    if (value !== undefined && !name.startsWith('dlq-')) headers[name] = value;
  }
  const firstFailedAt = firstText(original[DLQ_HEADER.firstFailedAt]);
  const previousCount = Number(firstText(original[DLQ_HEADER.failureCount]));
  const count = Number.isSafeInteger(previousCount) && previousCount > 0 ? previousCount + 1 : 1;

  headers[DLQ_HEADER.reason] = input.reason;
  headers[DLQ_HEADER.error] = truncate(input.error, MAX_DLQ_ERROR_LENGTH);
  headers[DLQ_HEADER.sourceTopic] = input.topic;
  headers[DLQ_HEADER.sourcePartition] = String(input.partition);
  headers[DLQ_HEADER.sourceOffset] = input.offset;
  headers[DLQ_HEADER.firstFailedAt] = firstFailedAt || input.failedAt.toISOString();
  headers[DLQ_HEADER.failureCount] = String(count);

  return {
    topic: dlqTopicOf(input.topic),
    message: { key: input.message.key, value: input.message.value, headers },
  };
}
