import type { IHeaders } from 'kafkajs';
import { dlqTopicOf } from './dlq-topic';
import type { PoisonReason, RawMessage } from './envelope';
import {
  firstHeaderText,
  MAX_HEADER_BYTES,
  MAX_HEADER_COUNT,
  sanitizeHeaders,
  type SafeHeaders,
} from './headers';
import { truncateText } from './temporal-limits';

/** DLQ header names (docs/architecture.md, "Bridge behaviour"). */
export const DLQ_HEADER = {
  reason: 'dlq-reason',
  error: 'dlq-error',
  sourceTopic: 'dlq-source-topic',
  sourcePartition: 'dlq-source-partition',
  sourceOffset: 'dlq-source-offset',
  firstFailedAt: 'dlq-first-failed-at',
  /** How many times this payload has been dead-lettered (1 on the first failure). */
  failureCount: 'dlq-failure-count',
  /**
   * Comma-separated names of original headers NOT copied: values that are not strings or
   * Buffers (null, inherited names such as `constructor`), and the headers past the copy's
   * bounds. Absent when every header was copied.
   */
  droppedHeaders: 'dlq-dropped-headers',
  /** The schema ID of a value in the Schema Registry wire format (its bytes 1-4), when it is one. */
  schemaId: 'dlq-schema-id',
} as const;

/** Longest `dlq-error` kept; a full zod report on a 500-line order must not bloat headers. */
export const MAX_DLQ_ERROR_LENGTH = 2000;

/** Longest `dlq-dropped-headers` kept (characters); the rest is summarised as a count. */
export const MAX_DROPPED_HEADERS_LENGTH = 2000;

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
  /** The schema ID of a value in the registry wire format: `dlq-schema-id`. */
  schemaId?: number;
}

/** A message ready for `producer.send({ topic, messages: [message] })`. */
export interface DlqRecord {
  topic: string;
  message: { key: Buffer | null; value: Buffer | null; headers: IHeaders };
}

/**
 * The DLQ record for a poison message: the original key, value and headers plus the dlq-*
 * headers. A message replayed from the DLQ that fails again keeps its `dlq-first-failed-at`
 * (the age of the problem matters to an operator) and counts up `dlq-failure-count`; the
 * other dlq-* headers describe the latest failure.
 */
export function buildDlqMessage(input: BuildDlqMessageInput): DlqRecord {
  const original = input.message.headers;
  const { headers: safe, dropped } = sanitizeHeaders(original);
  // No prototype: a header named `__proto__` is then an ordinary key, never a prototype swap.
  const headers: SafeHeaders = Object.create(null) as SafeHeaders;
  // The copy stays within the envelope's header bounds, so a message dead-lettered for too
  // many or too large headers cannot have its DLQ write refused for the same reason.
  let count = 0;
  let bytes = 0;
  for (const name of Object.keys(safe)) {
    // Earlier dlq-* headers are replaced below; an old reason next to a new one would mislead.
    if (name.startsWith('dlq-')) continue;
    const value = safe[name]!;
    const values = Array.isArray(value) ? value : [value];
    const size = values.reduce(
      (sum, v) =>
        sum +
        Buffer.byteLength(name, 'utf8') +
        (typeof v === 'string' ? Buffer.byteLength(v) : v.length),
      0,
    );
    if (count + values.length > MAX_HEADER_COUNT || bytes + size > MAX_HEADER_BYTES) {
      dropped.push(name);
      continue;
    }
    headers[name] = value;
    count += values.length;
    bytes += size;
  }
  const firstFailedAt = validTime(firstHeaderText(original, DLQ_HEADER.firstFailedAt));
  const previousCount = validCount(firstHeaderText(original, DLQ_HEADER.failureCount));

  headers[DLQ_HEADER.reason] = input.reason;
  headers[DLQ_HEADER.error] = truncateText(input.error, Infinity, MAX_DLQ_ERROR_LENGTH);
  headers[DLQ_HEADER.sourceTopic] = input.topic;
  headers[DLQ_HEADER.sourcePartition] = String(input.partition);
  headers[DLQ_HEADER.sourceOffset] = input.offset;
  headers[DLQ_HEADER.firstFailedAt] = firstFailedAt ?? input.failedAt.toISOString();
  headers[DLQ_HEADER.failureCount] = String((previousCount ?? 0) + 1);
  if (dropped.length > 0) headers[DLQ_HEADER.droppedHeaders] = listNames(dropped);
  if (input.schemaId !== undefined) headers[DLQ_HEADER.schemaId] = String(input.schemaId);

  return {
    topic: dlqTopicOf(input.topic),
    message: { key: input.message.key, value: input.message.value, headers },
  };
}

/** A previous `dlq-first-failed-at` when it is an ISO time; garbage counts as absent. */
function validTime(text: string | undefined): string | undefined {
  if (text === undefined || !/^\d{4}-\d{2}-\d{2}T[0-9:.]+Z$/.test(text)) return undefined;
  return Number.isNaN(Date.parse(text)) ? undefined : text;
}

/** A previous `dlq-failure-count` when it is a positive integer; garbage counts as absent. */
function validCount(text: string | undefined): number | undefined {
  if (text === undefined || !/^[1-9][0-9]{0,14}$/.test(text)) return undefined;
  return Number(text);
}

/** Header names, comma-separated, cut to MAX_DROPPED_HEADERS_LENGTH with a count of the rest. */
function listNames(names: readonly string[]): string {
  let out = '';
  for (let i = 0; i < names.length; i++) {
    const next = `${out ? ',' : ''}${JSON.stringify(names[i]).slice(1, -1)}`;
    if (out.length + next.length > MAX_DROPPED_HEADERS_LENGTH - 20) {
      return `${out},… (+${names.length - i} more)`;
    }
    out += next;
  }
  return out;
}

/** What a DLQ record's dlq-* headers say; a header that is absent or null is undefined. */
export interface DlqHeaders {
  reason?: string;
  error?: string;
  sourceTopic?: string;
  sourcePartition?: string;
  sourceOffset?: string;
  firstFailedAt?: string;
  failureCount?: string;
}

/**
 * Reads back the dlq-* headers buildDlqMessage wrote: the one reader of the DLQ record, used
 * by the ops CLI, reconcile and the test tools, so a renamed header cannot leave one behind.
 */
export function readDlqHeaders(headers: IHeaders | undefined): DlqHeaders {
  const read = (name: string) => firstHeaderText(headers, name);
  return {
    reason: read(DLQ_HEADER.reason),
    error: read(DLQ_HEADER.error),
    sourceTopic: read(DLQ_HEADER.sourceTopic),
    sourcePartition: read(DLQ_HEADER.sourcePartition),
    sourceOffset: read(DLQ_HEADER.sourceOffset),
    firstFailedAt: read(DLQ_HEADER.firstFailedAt),
    failureCount: read(DLQ_HEADER.failureCount),
  };
}
