import type { KafkaMessage } from 'kafkajs';
import { RetriesExhaustedError, RetryAbortedError, retryClassified } from './backoff';
import { classifyError } from './classify-error';
import { callDependency, DependencyCallError, retryOptions } from './dependency-call';
import { RegistryUnprovenError, SchemaPendingError, type SchemaMisses } from './schema-misses';
import type { StepContext } from './step-context';
import type { DecodedValue } from '../events/message-value';
import { registryFramingOf } from '../events/registry-framing';
import type { PoisonCommand } from '../events/translate';
import type { RegistryDecoder, RegistryDecoding } from '../kafka/registry-decoder';

/** What the registry made of one message's value: its decoded value, or poison. */
export type ValueDecoding = { decoded: DecodedValue } | { poison: PoisonCommand };

/** One try of a value's decoding, or the verdict that its schema ID is the message's fault. */
type DecodeTry = RegistryDecoding | { schemaUnknown: string };

/**
 * Decodes the batch's values (or keys, `part`) that name a Schema Registry schema (the wire
 * format; for values also Apicurio's ID headers: registry-framing.ts), in offset order,
 * before anything is translated (translation is pure; this is its I/O). A registry that is
 * down or refuses the bridge is the environment's fault: retried with backoff for as long as
 * the partition is ours, so the partition stalls (paused: the bridge's other partitions go on)
 * and nothing is dead-lettered or committed (`undefined`: stopped, leave the batch). A schema
 * ID the registry does not know is waited for, then, once the registry has shown it answers,
 * dead-lettered `schema-unknown` (schema-misses.ts). Bytes that do not decode with their
 * schema are poison `unparseable`; a schema the decoder cannot read (or look up)
 * `schema-unsupported`. Values too large for the bridge are left to the translation, which
 * dead-letters them `oversized` without decoding them.
 */
export async function decodeValues(
  messages: readonly KafkaMessage[],
  registry: RegistryDecoder,
  ctx: StepContext,
  maxBytes: number,
  misses?: SchemaMisses,
  part: 'key' | 'value' = 'value',
): Promise<Array<ValueDecoding | undefined> | undefined> {
  const out: Array<ValueDecoding | undefined> = [];
  for (const message of messages) {
    const value = message[part];
    const headers = part === 'value' ? message.headers : undefined;
    const framing = registryFramingOf(value, headers);
    if (value === null || value.length > maxBytes || framing === undefined) {
      out.push(undefined);
      continue;
    }
    const schemaId = 'schemaId' in framing ? framing.schemaId : undefined;
    try {
      const result = await retryClassified(
        () => decodeOnce(registry, ctx, { value, headers, schemaId }, misses, part),
        retryOptions(ctx, `schema registry decode (${part})`),
      );
      out.push(
        'schemaUnknown' in result
          ? { poison: { kind: 'poison', reason: 'schema-unknown', error: result.schemaUnknown } }
          : result.ok
            ? { decoded: result.decoded }
            : { poison: { kind: 'poison', reason: result.reason, error: result.error } },
      );
    } catch (err) {
      if (err instanceof RetryAbortedError) return undefined;
      if (!(err instanceof RetriesExhaustedError)) throw err;
      // An answer nothing recognises, a few times in a row: like any unknown failure.
      out.push({ poison: { kind: 'poison', reason: 'processing-failed', error: err.message } });
    }
  }
  return out;
}

/**
 * One registry decode of a value; a 404 for its schema ID is judged (schema-misses.ts):
 * waited for as `schema-pending`, kept as the environment's `schema-unknown` while the registry
 * has not shown it answers, or the message's fault once the wait is over.
 */
async function decodeOnce(
  registry: RegistryDecoder,
  ctx: StepContext,
  one: { value: Buffer; headers: KafkaMessage['headers']; schemaId: number | undefined },
  misses: SchemaMisses | undefined,
  part: 'key' | 'value',
): Promise<DecodeTry> {
  const { value, headers, schemaId } = one;
  try {
    const result = await callDependency(
      'registry',
      () => registry.decode(ctx.topic, value, headers, part),
      ctx.controls,
      registry.url,
    );
    if (schemaId !== undefined) misses?.noteAnswered(schemaId);
    return result;
  } catch (err) {
    if (!misses || schemaId === undefined || classifyError(err).fault !== 'schema-unknown')
      throw err;
    const verdict = await misses.judge(schemaId);
    if (verdict.kind === 'dead-letter') return { schemaUnknown: verdict.error };
    // Still the registry's call for the retry metrics, the partition's wait and the log.
    const wait =
      verdict.kind === 'wait'
        ? new SchemaPendingError(schemaId, verdict.unknownForMs, err)
        : new RegistryUnprovenError(schemaId, err, verdict.probeError);
    throw new DependencyCallError('registry', wait, registry.url);
  }
}
