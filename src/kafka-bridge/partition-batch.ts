import type { Client } from '@temporalio/client';
import type { Batch, KafkaMessage } from 'kafkajs';
import type { Logger } from '../logger';
import type { KnownEvent, LedgerStore } from '../db/ledger-store';
import { RetryAbortedError, retryTransient, type BackoffOptions } from './backoff';
import { classifyAgainstLedger } from './dedup';
import { buildDlqMessage, type DlqRecord } from './dlq-message';
import type { PoisonReason } from './envelope';
import type { BridgeMetrics } from './metrics';
import type { RouteTable } from './routes';
import {
  translateMessage,
  type StartCommand,
  type TranslateOptions,
  type Translation,
} from './translate';
import { startOrDeduplicate } from './workflow-starter';
import { runLimited } from './run-limited';
import { digestOf } from './log-digest';

/** Everything the batch handler talks to; injected by the bridge (and by tests). */
export interface BatchDeps {
  routes: RouteTable;
  translateOptions: TranslateOptions;
  ledger: LedgerStore;
  client: Client;
  taskQueue: string;
  sendToDlq: (record: DlqRecord) => Promise<void>;
  metrics: BridgeMetrics;
  log: Logger;
  /** Different keys of one batch started at once, at most. */
  concurrency: number;
  backoff?: BackoffOptions;
  now: () => Date;
}

/** The consumer's controls for one partition's batch (kafkajs eachBatch payload). */
export interface BatchControls {
  /** False once the bridge stops, the consumer stops, or the partition was reassigned. */
  shouldContinue: () => boolean;
  heartbeat: () => Promise<void>;
  resolveOffset: (offset: string) => void;
  /** Commits `nextOffset` (last handled offset + 1) for this partition. */
  commit: (nextOffset: string) => Promise<void>;
}

interface Item {
  message: KafkaMessage;
  translation: Translation;
  done: boolean;
}

type Dependency = 'temporal' | 'postgres' | 'dlq';

/**
 * Handles one fetched batch of one partition: translate every message, look the batch up in
 * the ledger with one query each for identities and versions, then per message key in order
 * (different keys concurrently, bounded) start, deduplicate or dead-letter. Offsets are
 * resolved only for the contiguous prefix of handled messages, and committed at the end; a
 * message whose dependency is down is retried, never dead-lettered, and stays uncommitted if
 * the bridge stops meanwhile.
 */
export async function handleBatch(
  batch: Batch,
  deps: BatchDeps,
  controls: BatchControls,
): Promise<void> {
  const { topic, partition } = batch;
  const log = deps.log.child({ topic, partition });
  deps.metrics.consumed.inc({ topic }, batch.messages.length);

  const retry = <T>(what: Dependency, fn: () => Promise<T>) =>
    retryTransient(fn, {
      what,
      shouldContinue: controls.shouldContinue,
      heartbeat: controls.heartbeat,
      backoff: deps.backoff,
      onRetry: (err, attempt, delayMs) => {
        deps.metrics.transientRetries.inc({ dependency: what });
        log.warn(
          { dependency: what, attempt, delayMs: Math.round(delayMs), err: (err as Error).message },
          'dependency unavailable, retrying',
        );
      },
    });

  const items: Item[] = batch.messages.map((message) => ({
    message,
    translation: translateMessage(message, deps.routes, deps.translateOptions),
    done: false,
  }));
  const starts = items
    .map((i) => i.translation)
    .filter((t): t is StartCommand => t.kind === 'start');

  let known: Map<string, KnownEvent>;
  let highest: Map<string, number>;
  try {
    [known, highest] = await retry('postgres', () =>
      Promise.all([
        deps.ledger.findKnown([...new Set(starts.map((s) => s.identity))]),
        deps.ledger.highestVersions(
          starts.filter((s) => s.aggregateVersion !== undefined).map((s) => s.aggregateId),
        ),
      ]),
    );
  } catch (err) {
    if (err instanceof RetryAbortedError) return;
    throw err;
  }

  let contiguous = 0;
  let lastResolved: string | undefined;
  const advance = () => {
    while (contiguous < items.length && items[contiguous]!.done) {
      lastResolved = items[contiguous]!.message.offset;
      controls.resolveOffset(lastResolved);
      contiguous++;
    }
  };

  const deadLetter = async (item: Item, reason: PoisonReason, error: string, identity?: string) => {
    const record = buildDlqMessage({
      message: item.message,
      topic,
      partition,
      offset: item.message.offset,
      reason,
      error,
      failedAt: deps.now(),
    });
    await retry('dlq', () => deps.sendToDlq(record));
    deps.metrics.dlq.inc({ topic, reason });
    log.warn(
      {
        offset: item.message.offset,
        identity,
        reason,
        // Sizes and hashes only: the error text may quote the body or a header (issue 17).
        error: digestOf(error),
        value: digestOf(item.message.value),
      },
      'dead-lettered',
    );
  };

  const remember = (cmd: StartCommand, runId: string | null) => {
    known.set(cmd.identity, {
      eventType: cmd.eventType,
      fingerprint: cmd.fingerprint,
      workflowId: cmd.workflowId,
      runId,
    });
    if (cmd.aggregateVersion !== undefined) {
      highest.set(
        cmd.aggregateId,
        Math.max(highest.get(cmd.aggregateId) ?? 0, cmd.aggregateVersion),
      );
    }
  };

  const recordInLedger = (cmd: StartCommand, message: KafkaMessage, runId: string | null) =>
    retry('postgres', () =>
      deps.ledger.recordStarted({
        identity: cmd.identity,
        eventType: cmd.eventType,
        eventId: cmd.eventId,
        aggregateId: cmd.aggregateId,
        aggregateVersion: cmd.aggregateVersion,
        fingerprint: cmd.fingerprint,
        workflowId: cmd.workflowId,
        runId,
        sourceTopic: topic,
        sourcePartition: partition,
        sourceOffset: message.offset,
      }),
    );

  const handleItem = async (item: Item) => {
    const t = item.translation;
    if (t.kind === 'poison') return deadLetter(item, t.reason, t.error);
    const verdict = classifyAgainstLedger(
      t,
      known.get(t.identity),
      t.aggregateVersion !== undefined ? highest.get(t.aggregateId) : undefined,
    );
    if (verdict.kind === 'duplicate') {
      deps.metrics.duplicates.inc({ topic, source: 'ledger' });
      log.debug({ offset: item.message.offset, identity: t.identity }, 'duplicate (ledger)');
      return;
    }
    if (verdict.kind === 'poison') {
      (verdict.reason === 'identity-conflict' ? deps.metrics.conflicts : deps.metrics.stale).inc({
        topic,
      });
      return deadLetter(item, verdict.reason, verdict.error, t.identity);
    }
    const source = { topic, partition, offset: item.message.offset };
    const timer = deps.metrics.startLatency.startTimer();
    const outcome = await retry('temporal', () =>
      startOrDeduplicate(deps.client, deps.taskQueue, t, source),
    );
    timer();
    switch (outcome.kind) {
      case 'started':
        await recordInLedger(t, item.message, outcome.runId);
        remember(t, outcome.runId);
        deps.metrics.started.inc({ topic, workflow_type: t.workflowType });
        log.info(
          {
            offset: item.message.offset,
            identity: t.identity,
            workflowId: t.workflowId,
            runId: outcome.runId,
          },
          'started',
        );
        return;
      case 'duplicate':
        // Started earlier but not in the ledger (a crash between start and ledger write, or
        // the ledger was reaped): record it now so the next redelivery costs no Temporal call.
        await recordInLedger(t, item.message, outcome.runId);
        remember(t, outcome.runId);
        deps.metrics.duplicates.inc({ topic, source: 'temporal' });
        log.debug({ offset: item.message.offset, identity: t.identity }, 'duplicate (temporal)');
        return;
      case 'conflict':
        deps.metrics.conflicts.inc({ topic });
        return deadLetter(item, 'identity-conflict', outcome.error, t.identity);
      case 'rejected':
        return deadLetter(item, 'start-rejected', outcome.error, t.identity);
    }
  };

  // Per key in order; a null key has no order to keep, so each such message is its own group.
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    const key = item.message.key
      ? `k:${item.message.key.toString('latin1')}`
      : `o:${item.message.offset}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }

  try {
    await runLimited(
      [...groups.values()].map((group) => async () => {
        for (const item of group) {
          if (!controls.shouldContinue()) return;
          try {
            await handleItem(item);
          } catch (err) {
            if (err instanceof RetryAbortedError) return;
            throw err;
          }
          item.done = true;
          advance();
          // kafkajs heartbeats only when asked (throttled to heartbeatInterval); a long batch
          // without this would outlive the session and lose the partition mid-way.
          await controls.heartbeat();
        }
      }),
      deps.concurrency,
    );
  } finally {
    if (lastResolved !== undefined) {
      await controls.commit((BigInt(lastResolved) + 1n).toString());
      deps.metrics.lag.set(
        { topic, partition: String(partition) },
        Math.max(0, Number(BigInt(batch.highWatermark) - BigInt(lastResolved) - 1n)),
      );
    }
  }
}
