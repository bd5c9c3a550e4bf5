import type { Batch, KafkaMessage } from 'kafkajs';
import { RetriesExhaustedError, RetryAbortedError, retryClassified } from './backoff';
import { LedgerView } from './ledger-view';
import { LedgerWrites } from './ledger-writes';
import { LedgerWriteQueue, type LedgerWritesOptions } from './ledger-write-queue';
import { callDependency, retryOptions } from './dependency-call';
import {
  handleMessage,
  translateSafely,
  type BatchItem,
  type StepContext,
  type StepControls,
  type StepDeps,
} from './message-step';
import { OffsetTracker } from './offset-tracker';
import { readableEndOf } from '../kafka/kafka-fetch-patch';
import { framingOf, readsRegistryValues, type RouteTable } from '../events/routes';
import type {
  PoisonCommand,
  StartCommand,
  TranslateOptions,
  Translation,
} from '../events/translate';
import { runLimited } from '../util/run-limited';
import { decodeValues, type ValueDecoding } from './value-decoding';
import type { SchemaMisses } from './schema-misses';
import { wireFormatSchemaId } from '../events/message-value';
import type { RegistryDecoder } from '../kafka/registry-decoder';
import { withRecordSpan } from '../tracing/kafka-record';

/** Everything the batch handler talks to; injected by the bridge (and by tests). */
export interface BatchDeps extends StepDeps {
  routes: RouteTable;
  translateOptions: TranslateOptions;
  /** Decodes values in the Schema Registry wire format. Default: none (they are poison). */
  registry?: RegistryDecoder;
  /**
   * Judges schema IDs the registry does not know (schema-misses.ts). Default: none (such a
   * value waits for as long as it takes, as any registry fault).
   */
  schemaMisses?: SchemaMisses;
  /** Different groups (keys or aggregates) of one batch handled at once, at most. */
  concurrency: number;
  /**
   * The bridge's queue of ledger rows, shared by every partition's batches so their rows share
   * INSERTs. Default: a queue of this batch's own, with `ledgerWrites`.
   */
  ledgerQueue?: LedgerWriteQueue;
  /** How a batch's own queue groups rows into INSERTs (no `ledgerQueue`). Default: its defaults. */
  ledgerWrites?: LedgerWritesOptions;
}

/** The consumer's controls for one partition's batch (kafkajs eachBatch payload). */
export interface BatchControls extends StepControls {
  resolveOffset: (offset: string) => void;
  /** Commits `nextOffset` (last handled offset + 1) for this partition. */
  commit: (nextOffset: string) => Promise<void>;
}

/**
 * The group a message is handled in, in offset order: its aggregate ID when it translated to a
 * start (the contract keys by aggregate ID, so this is the key for keyed messages, and it keeps
 * a null-key cancellation behind its order), else its key, else its own offset (poison without
 * an aggregate has nothing to keep order with).
 */
export function groupKeyOf(message: KafkaMessage, translation: Translation): string {
  if (translation.kind === 'start') return `a:${translation.aggregateId}`;
  if (message.key) return `a:${message.key.toString('utf8')}`;
  return `o:${message.offset}`;
}

/** The batch's items in groups; each group in offset order. */
export function groupItems(items: readonly BatchItem[]): BatchItem[][] {
  const groups = new Map<string, BatchItem[]>();
  for (const item of items) {
    const key = groupKeyOf(item.message, item.translation);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()];
}

/**
 * Handles one fetched batch of one partition: translate every message (each inside its own
 * guard), look the batch up in the ledger, then per group in order (different groups
 * concurrently, bounded) run the per-message step (message-step.ts); the ledger rows of the
 * starts are written together (ledger-writes.ts). Offsets are resolved for the contiguous
 * prefix of handled messages (offset-tracker.ts), a start's only once its row is written, and
 * committed at the end, only while the partition is still ours.
 */
export async function handleBatch(
  batch: Batch,
  deps: BatchDeps,
  controls: BatchControls,
): Promise<void> {
  const { topic, partition } = batch;
  // A batch fetched for a partition a rebalance already took away (or while stopping) is
  // left for its owner: kafkajs fetches again until its next heartbeat learns of the rebalance.
  if (!controls.shouldContinue()) return;
  const log = deps.log.child({ topic, partition });
  deps.metrics.consumed.inc({ topic }, batch.messages.length);
  if (batch.messages.length > 0) {
    deps.metrics.progress.noteBatch(
      topic,
      partition,
      batch.messages[0]!.offset,
      readableEndOf(batch),
    );
  }

  const ctx: StepContext = {
    topic,
    partition,
    deps,
    controls,
    view: new LedgerView(deps.ledger),
    log,
  };
  // A topic whose routes say `registry: false` never asks the registry: a zero byte is a byte.
  const registryValues = readsRegistryValues(deps.routes);
  const decodings =
    deps.registry && registryValues
      ? await decodeValues(
          batch.messages,
          deps.registry,
          ctx,
          deps.translateOptions.maxBytes,
          deps.schemaMisses,
        )
      : [];
  if (decodings === undefined) return; // stopped while the registry was failing: nothing handled
  // Kafka Connect's registry key converters write keys in the wire format too (a framing that
  // reads Connect's keys: Debezium's outbox).
  const keyDecodings =
    deps.registry && registryValues && framingOf(deps.routes).readKey
      ? await decodeValues(
          batch.messages,
          deps.registry,
          ctx,
          deps.translateOptions.maxBytes,
          deps.schemaMisses,
          'key',
        )
      : [];
  if (keyDecodings === undefined) return;
  const items: BatchItem[] = batch.messages.map((message, index) => {
    const decoding = decodings[index];
    const keyed = withDecodedKey(message, keyDecodings[index]);
    const schemaId = registryValues ? wireFormatSchemaId(message.value) : undefined;
    return {
      message,
      index,
      translation:
        decoding && 'poison' in decoding
          ? decoding.poison
          : 'poison' in keyed
            ? keyed.poison
            : translateSafely(keyed.message, deps.routes, deps.translateOptions, decoding?.decoded),
      ...(schemaId !== undefined ? { schemaId } : {}),
    };
  });

  const starts = items
    .map((i) => i.translation)
    .filter((t): t is StartCommand => t.kind === 'start');
  try {
    await retryClassified(
      () => callDependency('postgres', () => ctx.view.prefetch(starts), controls),
      retryOptions(ctx, 'ledger batch lookup'),
    );
  } catch (err) {
    if (err instanceof RetryAbortedError) return;
    if (!(err instanceof RetriesExhaustedError)) throw err;
    // One message's identity the database refuses must not fail the batch: each message
    // looks itself up inside its own guard instead.
    log.warn({ err: err.message }, 'batch ledger lookup failed; looking up per message');
  }

  const tracker = new OffsetTracker(
    items.map((i) => i.message.offset),
    controls.resolveOffset,
  );
  // Started messages are handled once their ledger row is written, in INSERTs shared with the
  // other partitions (ledger-writes.ts), so a start slot never waits for its own row.
  const writes = new LedgerWrites(
    ctx,
    (item) => tracker.markHandled(item.index),
    deps.ledgerQueue ?? new LedgerWriteQueue(deps.ledger, deps.ledgerWrites),
  );
  try {
    await runLimited(
      groupItems(items).map((group) => async () => {
        let rowBefore = false;
        for (const item of group) {
          // A later event of the aggregate may look for the earlier one's row (a cancellation
          // finds its order's owner there): the group's rows are written before it starts.
          if (rowBefore) await writes.flush();
          if (!controls.shouldContinue()) return;
          const outcome = await withRecordSpan(
            item.message,
            { topic, partition },
            () => handleMessage(item, ctx),
            (o) => o.kind,
          );
          if (outcome.kind === 'retry') return;
          rowBefore = 'row' in outcome;
          if ('row' in outcome) writes.add(item, outcome.row);
          else tracker.markHandled(item.index);
          // kafkajs heartbeats only when asked (throttled to heartbeatInterval); a long batch
          // without this would outlive the session and lose the partition mid-way. A failed
          // heartbeat (a rebalance) shows in ownsPartition/shouldContinue.
          await controls.heartbeat().catch(() => undefined);
        }
      }),
      deps.concurrency,
    );
  } finally {
    // Whatever ended the batch, the rows of its starts are written (or given up) before the
    // commit, and nothing is written for it afterwards.
    await writes.flush();
    writes.close();
    const next = commitOffsetOf(batch, tracker);
    if (next !== undefined && controls.ownsPartition()) {
      await controls.commit(next);
      deps.metrics.progress.noteCommitted(topic, partition, next);
    }
  }
}

/**
 * The message as the translation reads it: its key as text when the registry decoded it (a
 * string, or a whole number as its digits), else as it is. The DLQ record keeps the original.
 */
function withDecodedKey(
  message: KafkaMessage,
  decoding: ValueDecoding | undefined,
): { message: KafkaMessage } | { poison: PoisonCommand } {
  if (decoding === undefined) return { message };
  if ('poison' in decoding) return { poison: decoding.poison };
  const key = decoding.decoded.value;
  if (typeof key === 'string' || (typeof key === 'number' && Number.isSafeInteger(key)))
    return { message: { ...message, key: Buffer.from(String(key), 'utf8') } };
  return {
    poison: {
      kind: 'poison',
      reason: 'validation-failed',
      error: `key: the registry decoded a ${key === null ? 'null' : typeof key}, not the aggregate ID`,
    },
  };
}

/**
 * The offset to commit after a batch: past the handled prefix and, once every message of the
 * batch is handled, past the records KafkaJS fetched but did not hand over (transaction
 * markers and aborted records, which `batch.lastOffset()` still counts). A transactional
 * producer ends each transaction with a marker on every partition it wrote, so without this
 * an idle partition's committed offset would stay one short of its end for good.
 */
export function commitOffsetOf(batch: Batch, tracker: OffsetTracker): string | undefined {
  const next = tracker.nextOffset();
  if (next === undefined || tracker.handledPrefix < batch.messages.length) return next;
  const pastBatch = BigInt(batch.lastOffset()) + 1n;
  return pastBatch > BigInt(next) ? pastBatch.toString() : next;
}
