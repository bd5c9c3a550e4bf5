import type { KafkaMessage } from 'kafkajs';
import { RetriesExhaustedError, RetryAbortedError, retryClassified } from './backoff';
import { callDependency, retryOptions } from './dependency-call';
import type { StepContext } from './step-context';
import type { DecodedValue } from '../events/message-value';
import { registryFramingOf } from '../events/registry-framing';
import type { PoisonCommand } from '../events/translate';
import type { RegistryDecoder } from '../kafka/registry-decoder';

/** What the registry made of one message's value: its decoded value, or poison. */
export type ValueDecoding = { decoded: DecodedValue } | { poison: PoisonCommand };

/**
 * Decodes the batch's values that name a Schema Registry schema (the wire format, Apicurio's
 * ID headers: registry-framing.ts), in offset order,
 * before anything is translated (translation is pure; this is its I/O). A registry that is
 * down, refuses the bridge or does not know a schema ID is the environment's fault: retried
 * with backoff for as long as the partition is ours, so the partition stalls and nothing is
 * dead-lettered or committed (`undefined`: stopped, leave the batch). Bytes that do not decode
 * with their schema are poison `unparseable`; a schema the decoder cannot read (or look up)
 * `schema-unsupported`. Values too large for the bridge are left to the
 * translation, which dead-letters them `oversized` without decoding them.
 */
export async function decodeValues(
  messages: readonly KafkaMessage[],
  registry: RegistryDecoder,
  ctx: StepContext,
  maxBytes: number,
): Promise<Array<ValueDecoding | undefined> | undefined> {
  const out: Array<ValueDecoding | undefined> = [];
  for (const message of messages) {
    const value = message.value;
    if (
      value === null ||
      value.length > maxBytes ||
      registryFramingOf(value, message.headers) === undefined
    ) {
      out.push(undefined);
      continue;
    }
    try {
      const result = await retryClassified(
        () =>
          callDependency(
            'registry',
            () => registry.decode(ctx.topic, value, message.headers),
            ctx.controls,
            registry.url,
          ),
        retryOptions(ctx, 'schema registry decode'),
      );
      out.push(
        result.ok
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
