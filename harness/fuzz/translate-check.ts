import type { KafkaMessage } from 'kafkajs';
import type { RouteTable } from '../../src/events/routes';
import { translateMessage, type TranslateOptions } from '../../src/events/translate';
import type { FuzzMessage, HeaderValue } from './message';

/** A message whose translation threw instead of returning a verdict. */
export interface TranslationThrow {
  seq: number;
  kind: string;
  error: string;
}

const asBuffer = (v: HeaderValue) => (v === null || Buffer.isBuffer(v) ? v : Buffer.from(v));

/** The message as KafkaJS (with the header decoder patch) hands it to the bridge. */
export function asConsumed(m: FuzzMessage): KafkaMessage {
  const headers = Object.create(null) as Record<string, unknown>;
  for (const [name, v] of Object.entries(m.headers))
    headers[name] = Array.isArray(v) ? v.map(asBuffer) : asBuffer(v);
  return {
    key: m.key === null ? null : asBuffer(m.key),
    value: m.value === null ? null : asBuffer(m.value),
    headers,
    timestamp: '0',
    attributes: 0,
    offset: '0',
  } as unknown as KafkaMessage;
}

/**
 * Runs the bridge's pure translation over every message in this process. Translation must
 * return a verdict (an event or poison) for any input; one that throws escapes the bridge's
 * per-message guard and makes it restart its consumer into the same batch, so each throw is
 * named here with the message kind, before the run even starts.
 */
export function findTranslationThrows(
  messages: FuzzMessage[],
  routes: RouteTable,
  options: TranslateOptions,
): TranslationThrow[] {
  const throws: TranslationThrow[] = [];
  for (const m of messages) {
    try {
      translateMessage(asConsumed(m), routes, options);
    } catch (err) {
      throws.push({
        seq: m.seq,
        kind: m.kind,
        error: `${(err as Error).name}: ${(err as Error).message}`,
      });
    }
  }
  return throws;
}
