// A fetched batch taken in: its values decoded through the registry, each message translated
// inside its own guard, and each given what the scheduler needs to place it (its key's
// group, tenant, class, bytes). I/O only for the registry; the ledger lookup is the window's
// (partition-run.ts), which keeps what the batch learns for the records after it.
import type { Batch, KafkaMessage } from 'kafkajs';
import { framingOf, readsRegistryValues, type RouteTable } from '../events/routes';
import type { PoisonCommand, TranslateOptions, Translation } from '../events/translate';
import { wireFormatSchemaId } from '../events/message-value';
import { REPLAY_OF_HEADER } from '../events/replay-header';
import { readHeader } from '../events/envelope';
import type { RegistryDecoder } from '../kafka/registry-decoder';
import { translateSafely, type BatchItem, type StepContext } from './message-step';
import type { SchemaMisses } from './schema-misses';
import { decodeValues, type ValueDecoding } from './value-decoding';
import type { StartClass, WindowRecord } from './read-ahead-window';

/** What taking a batch in needs (part of BatchDeps). */
export interface IntakeDeps {
  routes: RouteTable;
  translateOptions: TranslateOptions;
  /** Decodes values in the Schema Registry wire format. Default: none (they are poison). */
  registry?: RegistryDecoder;
  /** Judges schema IDs the registry does not know (schema-misses.ts). Default: none. */
  schemaMisses?: SchemaMisses;
  /** A bridge in BRIDGE_MODE=backfill: every record is in the background class. */
  backfill?: boolean;
}

/**
 * The group a message is started in, in offset order: its aggregate ID when it translated to
 * a start (the contract keys by aggregate ID, so this is the key for keyed messages, and it
 * keeps a null-key cancellation behind its order), else its key, else its own offset (poison
 * without an aggregate has nothing to keep order with).
 */
export function groupKeyOf(message: KafkaMessage, translation: Translation): string {
  if (translation.kind === 'start') return `a:${translation.aggregateId}`;
  if (message.key) return `a:${message.key.toString('utf8')}`;
  return `o:${message.offset}`;
}

/** Live, or behind live: a backfill's records, DLQ replays (their header), as their runs start. */
export function classOf(item: BatchItem, backfill: boolean): StartClass {
  if (backfill) return 'background';
  const t = item.translation;
  if (t.kind === 'start') return t.origin === 'replay' ? 'background' : 'live';
  try {
    return readHeader(item.message.headers, REPLAY_OF_HEADER) !== undefined ? 'background' : 'live';
  } catch {
    return 'live'; // a header that does not read (poison anyway): its dead letter says so
  }
}

/** What a waiting record holds: its key, value and headers. */
export function bytesOf(message: KafkaMessage): number {
  let n = (message.key?.length ?? 0) + (message.value?.length ?? 0);
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    n += name.length;
    for (const v of Array.isArray(value) ? value : [value]) n += v?.length ?? 0;
  }
  return n;
}

/** A translated message as the window takes it. */
export function windowRecordOf(item: BatchItem, backfill: boolean): WindowRecord<BatchItem> {
  const t = item.translation;
  return {
    offset: BigInt(item.message.offset),
    bytes: bytesOf(item.message),
    group: groupKeyOf(item.message, t),
    tenant: t.kind === 'start' ? (t.tenant ?? '') : '',
    cls: classOf(item, backfill),
    item,
  };
}

/**
 * Decodes and translates a batch's messages; undefined when the bridge stopped (or lost the
 * partition) while the registry was failing: nothing of the batch is taken in.
 */
export async function translateBatch(
  batch: Batch,
  deps: IntakeDeps,
  ctx: StepContext,
): Promise<BatchItem[] | undefined> {
  // A topic whose routes say `registry: false` never asks the registry: a zero byte is a byte.
  const registryValues = readsRegistryValues(deps.routes);
  const decode = (part: 'key' | 'value') =>
    decodeValues(
      batch.messages,
      deps.registry!,
      ctx,
      deps.translateOptions.maxBytes,
      deps.schemaMisses,
      part,
    );
  const decodings = deps.registry && registryValues ? await decode('value') : [];
  if (decodings === undefined) return undefined;
  // Kafka Connect's registry key converters write keys in the wire format too (a framing that
  // reads Connect's keys: Debezium's outbox).
  const keyDecodings =
    deps.registry && registryValues && framingOf(deps.routes).readKey ? await decode('key') : [];
  if (keyDecodings === undefined) return undefined;
  return batch.messages.map((message, index) => {
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
