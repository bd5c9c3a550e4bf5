import type { KafkaMessage } from 'kafkajs';
import type { Logger } from '../logger';
import {
  RetriesExhaustedError,
  RetryAbortedError,
  retryClassified,
  type BackoffOptions,
} from './backoff';
import { describeError } from './classify-error';
import { classifyAgainstLedger } from './dedup';
import { deadLetter } from './dead-letter';
import { callDependency, retryOptions } from './dependency-call';
import type { DlqRecord } from '../events/dlq-message';
import type { LedgerView, BatchLedger } from './ledger-view';
import type { FaultContext } from './fault-advice';
import type { BridgeMetrics } from './metrics';
import type { PoisonReason } from '../events/poison';
import type { RouteTable } from '../events/routes';
import {
  translateMessage,
  type StartCommand,
  type TranslateOptions,
  type Translation,
} from '../events/translate';
import type { SourcePosition, StartOutcome } from './workflow-starter';

export { callDependency, DependencyCallError, type Dependency } from './dependency-call';
export { deadLetter } from './dead-letter';

/** What the per-message step talks to; injected by the batch handler (fakes in tests). */
export interface StepDeps {
  ledger: BatchLedger;
  /**
   * Starts (or deduplicates) the workflow of one command: startOrDeduplicate in production.
   * `signal` aborts when the call is abandoned (its partition was lost).
   */
  start: (cmd: StartCommand, source: SourcePosition, signal: AbortSignal) => Promise<StartOutcome>;
  sendToDlq: (record: DlqRecord) => Promise<void>;
  metrics: BridgeMetrics;
  log: Logger;
  backoff?: BackoffOptions;
  /** Tries of a non-transient failure before dead-lettering. Default: DEFAULT_MAX_ATTEMPTS (3). */
  maxAttempts?: number;
  /** What the log line of an environment fault names in its fix (fault-advice.ts). */
  faultContext: FaultContext;
  now: () => Date;
}

/** The partition's controls the step needs (a subset of the batch controls). */
export interface StepControls {
  /** False once the bridge stops or the partition is no longer ours: leave the message. */
  shouldContinue: () => boolean;
  /**
   * False once a rebalance took the partition away (or a new generation began): in-flight
   * calls are abandoned and nothing is committed or dead-lettered for it any more. A stopping
   * bridge still owns its partitions and commits the handled prefix.
   */
  ownsPartition: () => boolean;
  heartbeat: () => Promise<void>;
}

/** One message of the batch, translated. */
export interface BatchItem {
  message: KafkaMessage;
  /** Position in the batch (for the offset tracker). */
  index: number;
  translation: Translation;
}

/**
 * The step's outcome for one message: `started`, `duplicate` and `dead-lettered` are handled
 * (the offset may be committed); `retry` means the step was stopped (shutdown, lost
 * partition) before the message was handled, so it stays uncommitted and is redelivered.
 */
export type StepOutcome =
  | { kind: 'started'; runId: string }
  | { kind: 'duplicate'; source: 'ledger' | 'temporal' }
  | { kind: 'dead-lettered'; reason: PoisonReason; stub: boolean }
  | { kind: 'retry' };

export interface StepContext {
  topic: string;
  partition: number;
  deps: StepDeps;
  controls: StepControls;
  view: LedgerView;
  log: Logger;
}

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
): Translation {
  try {
    return translateMessage(message, routes, options);
  } catch (err) {
    return {
      kind: 'poison',
      reason: 'processing-failed',
      error: `translation threw: ${describeError(err)}`,
    };
  }
}

type AttemptResult =
  | Exclude<StepOutcome, { kind: 'dead-lettered' } | { kind: 'retry' }>
  | { kind: 'dead-letter'; reason: PoisonReason; error: string };

/** One try at a valid command: ledger facts, then start, then the ledger row. */
async function attemptStart(
  cmd: StartCommand,
  item: BatchItem,
  ctx: StepContext,
): Promise<AttemptResult> {
  const { deps, topic, partition } = ctx;
  const facts = await callDependency('postgres', () => ctx.view.lookup(cmd), ctx.controls);
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
  // write, or the ledger was reaped): record it so the next redelivery costs no Temporal call.
  await callDependency(
    'postgres',
    () =>
      deps.ledger.recordStarted({
        identity: cmd.identity,
        eventType: cmd.eventType,
        eventId: cmd.eventId,
        aggregateId: cmd.aggregateId,
        aggregateVersion: cmd.aggregateVersion,
        fingerprint: cmd.fingerprint,
        workflowId: cmd.workflowId,
        runId: outcome.runId,
        sourceTopic: topic,
        sourcePartition: partition,
        sourceOffset: item.message.offset,
      }),
    ctx.controls,
  );
  ctx.view.remember(cmd, outcome.runId);
  return outcome.kind === 'started'
    ? { kind: 'started', runId: outcome.runId }
    : { kind: 'duplicate', source: 'temporal' };
}

/**
 * The per-message step: poison goes to the DLQ; a valid command is deduplicated against the
 * ledger, started, and recorded. Transient failures (a dependency down) are retried for as
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
