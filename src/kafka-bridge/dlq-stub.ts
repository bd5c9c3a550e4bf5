import { createHash } from 'node:crypto';
import type { IHeaders } from 'kafkajs';
import { dlqTopicOf } from '../events/dlq-topic';
import { DLQ_HEADER, MAX_DLQ_ERROR_LENGTH, type DlqRecord } from '../events/dlq-message';
import { DLQ_STUB_HEADER, type DlqStubValue } from '../events/dlq-stub-format';
import type { PoisonReason } from '../events/poison';

// The format is owned by src/events (its reader, `dlq replay`, is not part of the bridge).
export { DLQ_STUB_HEADER, type DlqStubValue } from '../events/dlq-stub-format';

/*
 * The stub DLQ record: written instead of the full record when the DLQ refused the full one
 * for something the message carries (MESSAGE_TOO_LARGE, a header KafkaJS cannot encode, ...),
 * so the partition moves on and the message is not lost without a trace.
 *
 * Format (built here; its header names and value type live in src/events/dlq-stub-format.ts):
 * - headers: the usual `dlq-*` headers (reason, error, source topic/partition/offset,
 *   first-failed-at, failure-count), plus `dlq-stub: true`, `dlq-stub-cause` (why the full
 *   record was refused) and `content-type: application/json`. Nothing of the original
 *   headers is copied: they may be what could not be encoded.
 * - key: the original key when it is at most {@link STUB_MAX_KEY_BYTES} bytes (the DLQ keeps
 *   one order's poison in one partition), else null (its hash is in the value).
 * - value: JSON, {@link DlqStubValue}: source coordinates, size and sha256 of the key and the
 *   value, the value's first {@link STUB_HEAD_BYTES} bytes in base64 (binary-safe and
 *   unambiguous; the value may be anything), and the header names (at most
 *   {@link STUB_MAX_HEADER_NAMES}, each at most {@link STUB_MAX_HEADER_NAME_LENGTH}
 *   characters). The sha256 lets an operator match the stub against the source topic's copy
 *   (kept for the source topic's retention) or the producer's log; `dlq replay` does so.
 */

/** Bytes of the value kept in the stub (base64 in `value.headBase64`). */
export const STUB_HEAD_BYTES = 1024;
/** Largest key kept as the stub's key. */
export const STUB_MAX_KEY_BYTES = 1024;
/** Header names listed in the stub, at most. */
export const STUB_MAX_HEADER_NAMES = 100;
/** Characters kept of each listed header name. */
export const STUB_MAX_HEADER_NAME_LENGTH = 200;

export interface BuildDlqStubInput {
  /** The message as consumed; only sizes, hashes, a head and names are read. */
  message: { key: Buffer | null; value: Buffer | null; headers?: IHeaders };
  topic: string;
  partition: number;
  offset: string;
  reason: PoisonReason;
  error: string;
  /** Why the full record was refused (the DLQ producer's error). */
  refusal: string;
  failedAt: Date;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function bufferOrNull(value: unknown): Buffer | null {
  return Buffer.isBuffer(value) ? value : null;
}

/** Own header names only, bounded; never reads a header value. */
function headerNames(headers: unknown): DlqStubValue['headers'] {
  if (typeof headers !== 'object' || headers === null) {
    return { count: 0, names: [], namesTruncated: false };
  }
  const all = Object.keys(headers);
  return {
    count: all.length,
    names: all.slice(0, STUB_MAX_HEADER_NAMES).map((n) => truncate(n, STUB_MAX_HEADER_NAME_LENGTH)),
    namesTruncated: all.length > STUB_MAX_HEADER_NAMES,
  };
}

/**
 * The stub record for a message whose full DLQ record was refused. Pure; every field it
 * writes is built here from sizes, hashes and bounded strings, so the stub itself is always
 * encodable and small (a few KiB).
 */
export function buildDlqStub(input: BuildDlqStubInput): DlqRecord {
  const key = bufferOrNull(input.message.key);
  const value = bufferOrNull(input.message.value);
  const error = truncate(input.error, MAX_DLQ_ERROR_LENGTH);
  const refusal = truncate(input.refusal, MAX_DLQ_ERROR_LENGTH);
  const body: DlqStubValue = {
    stub: true,
    reason: input.reason,
    error,
    refusal,
    source: { topic: input.topic, partition: input.partition, offset: input.offset },
    key: key ? { size: key.length, sha256: sha256(key) } : null,
    value: value
      ? {
          size: value.length,
          sha256: sha256(value),
          headBase64: value.subarray(0, STUB_HEAD_BYTES).toString('base64'),
        }
      : null,
    headers: headerNames(input.message.headers),
  };
  const headers: IHeaders = {
    [DLQ_HEADER.reason]: input.reason,
    [DLQ_HEADER.error]: error,
    [DLQ_HEADER.sourceTopic]: input.topic,
    [DLQ_HEADER.sourcePartition]: String(input.partition),
    [DLQ_HEADER.sourceOffset]: input.offset,
    [DLQ_HEADER.firstFailedAt]: input.failedAt.toISOString(),
    [DLQ_HEADER.failureCount]: '1',
    [DLQ_STUB_HEADER.stub]: 'true',
    [DLQ_STUB_HEADER.cause]: refusal,
    'content-type': 'application/json',
  };
  return {
    topic: dlqTopicOf(input.topic),
    message: {
      key: key && key.length <= STUB_MAX_KEY_BYTES ? key : null,
      value: Buffer.from(JSON.stringify(body)),
      headers,
    },
  };
}
