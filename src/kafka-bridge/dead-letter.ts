import { RetryAbortedError, retryClassified } from './backoff';
import { describeError } from './classify-error';
import { callDependency, retryOptions } from './dependency-call';
import { buildDlqMessage } from '../events/dlq-message';
import { buildDlqStub } from './dlq-stub';
import type { BatchItem, StepContext, StepOutcome } from './step-context';
import type { PoisonReason } from '../events/poison';
import { digestOf } from './log-digest';

/**
 * Writes the DLQ record of a message; when the DLQ refuses the full record for something
 * the message carries (too large, un-encodable) a few times in a row, writes the stub record
 * instead (dlq-stub.ts), retried until written: the stub is small and built from plain
 * strings, so only an unavailable DLQ can refuse it. Never writes for a partition we no longer
 * own (`shouldContinue` false: the outcome is `retry`).
 */
export async function deadLetter(
  item: BatchItem,
  reason: PoisonReason,
  error: string,
  ctx: StepContext,
): Promise<StepOutcome> {
  const { deps, topic, partition } = ctx;
  const offset = item.message.offset;
  if (!ctx.controls.shouldContinue()) return { kind: 'retry' };
  let stub = false;
  // What both the full record and the stub say about the message and why it failed.
  const failure = { message: item.message, topic, partition, offset, reason, error };
  const schemaId = item.schemaId;
  try {
    try {
      const record = buildDlqMessage({
        ...failure,
        failedAt: deps.now(),
        ...(schemaId !== undefined ? { schemaId } : {}),
      });
      await retryClassified(
        () => callDependency('dlq', () => deps.sendToDlq(record), ctx.controls, record.topic),
        retryOptions(ctx, 'dlq write'),
      );
    } catch (err) {
      if (err instanceof RetryAbortedError) throw err;
      const stubRecord = buildDlqStub({
        ...failure,
        refusal: describeError(err),
        failedAt: deps.now(),
      });
      ctx.log.warn(
        { offset, reason, refusal: describeError(err) },
        'DLQ refused the full record; writing a stub',
      );
      await retryClassified(
        () =>
          callDependency('dlq', () => deps.sendToDlq(stubRecord), ctx.controls, stubRecord.topic),
        retryOptions(ctx, 'dlq stub write', Number.POSITIVE_INFINITY),
      );
      stub = true;
      deps.metrics.dlqStubs.inc({ topic, reason });
    }
  } catch (err) {
    if (err instanceof RetryAbortedError) return { kind: 'retry' };
    throw err;
  }
  deps.metrics.dlq.inc({ topic, reason });
  // Sizes and hashes only: the error text may quote the body or a header value (personal
  // data); the DLQ record keeps the full text.
  ctx.log.warn(
    { offset, reason, error: digestOf(error), value: digestOf(item.message.value), stub },
    'dead-lettered',
  );
  return { kind: 'dead-lettered', reason, stub };
}
