import type { KafkaMessage } from 'kafkajs';
import { RetriesExhaustedError, RetryAbortedError, retryClassified } from './backoff';
import { describeError } from './classify-error';
import { classifyAgainstLedger } from './dedup';
import { deadLetter } from './dead-letter';
import { callDependency, retryOptions } from './dependency-call';
import type { LedgerRow } from '../db/ledger-store';
import type { SourcePosition } from './workflow-starter';
import type { PoisonReason } from '../events/poison';
import type { RouteTable } from '../events/routes';
import type { DecodedValue } from '../events/message-value';
import {
  translateMessage,
  type StartCommand,
  type TranslateOptions,
  type Translation,
} from '../events/translate';

export { callDependency, DependencyCallError, type Dependency } from './dependency-call';
export { deadLetter } from './dead-letter';

export type { BatchItem, StepContext, StepControls, StepDeps, StepOutcome } from './step-context';
import type { BatchItem, StepContext, StepOutcome } from './step-context';

/**
 * Translates one message; whatever the translation throws (a RangeError from deeply nested
 * JSON, a hostile header...) becomes poison `processing-failed` for this message alone, so
 * nothing producer-controlled can throw out of the batch. Translation is pure, so a retry
 * could not help.
 */
export function translateSafely(
  message: KafkaMessage,
  routes: RouteTable,
  options: TranslateOptions,
  decoded?: DecodedValue,
): Translation {
  try {
    return translateMessage(message, routes, options, decoded);
  } catch (err) {
    return {
      kind: 'poison',
      reason: 'processing-failed',
      error: `translation threw: ${describeError(err)}`,
    };
  }
}

/** The ledger row of a started command, read from `source`. */
export function ledgerRowOf(
  cmd: StartCommand,
  source: SourcePosition,
  runId: string | null,
): LedgerRow {
  return {
    identity: cmd.identity,
    eventType: cmd.eventType,
    eventId: cmd.eventId,
    aggregateId: cmd.aggregateId,
    aggregateVersion: cmd.aggregateVersion,
    fingerprint: cmd.fingerprint,
    workflowId: cmd.workflowId,
    runId,
    sourceTopic: source.topic,
    sourcePartition: source.partition,
    sourceOffset: source.offset,
  };
}

type AttemptResult =
  | Exclude<StepOutcome, { kind: 'dead-lettered' } | { kind: 'retry' }>
  | { kind: 'dead-letter'; reason: PoisonReason; error: string };

/** One try at a valid command: ledger facts, then the start; returns the row to record. */
async function attemptStart(
  cmd: StartCommand,
  item: BatchItem,
  ctx: StepContext,
): Promise<AttemptResult> {
  const { deps, topic, partition } = ctx;
  // Prefetched batches answer from memory; only a per-message lookup is a Postgres call (with
  // its keepalive timer and abort signal, which cost more than the answer itself).
  const facts =
    ctx.view.prefetchedFacts(cmd) ??
    (await callDependency('postgres', () => ctx.view.lookup(cmd), ctx.controls));
  const verdict = classifyAgainstLedger(cmd, facts.known, facts.highest);
  if (verdict.kind === 'duplicate') return { kind: 'duplicate', source: 'ledger' };
  if (verdict.kind === 'poison') {
    (verdict.reason === 'identity-conflict' ? deps.metrics.conflicts : deps.metrics.stale).inc({
      topic,
    });
    return { kind: 'dead-letter', reason: verdict.reason, error: verdict.error };
  }
  const source = { topic, partition, offset: item.message.offset };
  const timer = deps.metrics.startLatency.startTimer();
  const outcome = await callDependency(
    'temporal',
    (signal) => deps.start(cmd, source, signal),
    ctx.controls,
  );
  timer();
  if (outcome.kind === 'conflict') {
    deps.metrics.conflicts.inc({ topic });
    return { kind: 'dead-letter', reason: 'identity-conflict', error: outcome.error };
  }
  if (outcome.kind === 'rejected') {
    return { kind: 'dead-letter', reason: 'start-rejected', error: outcome.error };
  }
  // Started, or started earlier but not in the ledger (a crash between start and ledger
  // write, or the ledger was reaped): its row, so the next redelivery costs no Temporal call.
  // The batch writes it (ledger-writes.ts) and counts the message handled only once it is.
  const row = ledgerRowOf(cmd, source, outcome.runId);
  ctx.view.remember(cmd, outcome.runId);
  return outcome.kind === 'started'
    ? { kind: 'started', runId: outcome.runId, row }
    : { kind: 'duplicate', source: 'temporal', row };
}

/**
 * The per-message step: poison goes to the DLQ; a valid command is deduplicated against the
 * ledger and started; a start (or one Temporal already had) returns its ledger `row`, which
 * the caller writes before the message counts as handled. Transient failures (a dependency down) are retried for as
 * long as the partition is ours; any other failure a few times, then the message is
 * dead-lettered as `processing-failed` with the real cause. Never throws for anything the
 * message or a dependency does.
 */
export async function handleMessage(item: BatchItem, ctx: StepContext): Promise<StepOutcome> {
  const t = item.translation;
  const { deps, topic } = ctx;
  if (t.kind === 'poison') return deadLetter(item, t.reason, t.error, ctx);
  let result: AttemptResult;
  try {
    result = await retryClassified(() => attemptStart(t, item, ctx), retryOptions(ctx, 'message'));
  } catch (err) {
    if (err instanceof RetryAbortedError) return { kind: 'retry' };
    const error =
      err instanceof RetriesExhaustedError ? err.message : `unexpected: ${describeError(err)}`;
    return deadLetter(item, 'processing-failed', error, ctx);
  }
  const offset = item.message.offset;
  switch (result.kind) {
    case 'dead-letter':
      return deadLetter(item, result.reason, result.error, ctx);
    case 'duplicate':
      deps.metrics.duplicates.inc({ topic, source: result.source });
      ctx.log.debug({ offset, identity: t.identity }, `duplicate (${result.source})`);
      return result;
    case 'started':
      deps.metrics.started.inc({ topic, workflow_type: t.workflowType });
      ctx.log.info(
        { offset, identity: t.identity, workflowId: t.workflowId, runId: result.runId },
        'started',
      );
      return result;
  }
}
