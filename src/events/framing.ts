import type { IHeaders } from 'kafkajs';
import { frameCloudEvent, type CloudEventsOptions } from './cloudevents';
import { frameDebeziumOutbox, readConnectKey, type DebeziumOutboxOptions } from './debezium-outbox';
import {
  frameOnceflowEnvelope,
  parseFramed,
  readHeader,
  type Envelope,
  type ParseEnvelopeOptions,
  type ParseEnvelopeResult,
  type RawMessage,
} from './envelope';
import { parseAggregateVersion } from './event-fields';
import { decodeUtf8 } from './json-value';
import { readMessageValue, rejectUndecodedWireFormat, type DecodedValue } from './message-value';
import { PoisonError } from './poison';

export type { CloudEventsOptions } from './cloudevents';
export type { DebeziumOutboxOptions } from './debezium-outbox';

/** A message as a framing function sees it. */
export interface FramedMessage {
  /** The key as text, or null. */
  key: string | null;
  /** One header as text (a repeat with different values is poison), or undefined. */
  header(name: string): string | undefined;
  /** The value: its JSON, or the object the Schema Registry decoded. */
  value: unknown;
}

/**
 * What a framing function finds in a message: the event type, its identity (an event ID, or
 * the aggregate and its version, or both), the aggregate and the data. Without an event ID the
 * event is named `<aggregateId>@<version>` (its `EventId` search attribute).
 */
export interface FramedEvent {
  eventType: string;
  eventId?: string;
  aggregateId: string;
  aggregateVersion?: number;
  data: unknown;
}

/** A team's own framing: reads one message; may throw, and the message is poison. */
export type FramingFunction = (message: FramedMessage) => FramedEvent;

/**
 * How a route's events are framed on the topic (docs/bridge.md, "Framings"):
 * - `'envelope'`: onceflow's own (the default);
 * - `'cloudevents'` or `{ kind: 'cloudevents', version }`: CloudEvents 1.0, binary or structured;
 * - `'debezium-outbox'` or `{ kind: 'debezium-outbox', … }`: Debezium's outbox event router;
 * - a function for anything else.
 */
export type FramingSpec =
  | 'envelope'
  | 'cloudevents'
  | 'debezium-outbox'
  | CloudEventsOptions
  | DebeziumOutboxOptions
  | FramingFunction;

/** A framing ready to read messages. */
export interface Framing {
  /** What logs and errors call it: envelope, cloudevents, debezium-outbox, function. */
  readonly name: string;
  /** Equal for two framings that read every message alike (one topic has one framing). */
  readonly key: string;
  frame(message: RawMessage, decoded?: DecodedValue): Envelope;
  /**
   * How it reads a record key, when not as UTF-8 text: Kafka Connect's key converters wrap it
   * (debezium-outbox.ts). The key a message is checked against its aggregate with, and a
   * framing with one has its keys in the registry's wire format decoded too (partition-batch.ts).
   */
  readonly readKey?: (key: Buffer) => string;
}

export const ENVELOPE_FRAMING: Framing = {
  name: 'envelope',
  key: 'envelope',
  frame: frameOnceflowEnvelope,
};

const functionKeys = new WeakMap<FramingFunction, string>();
let functionCount = 0;

/** A key per function object: two routes share a function framing only by sharing the function. */
function keyOfFunction(fn: FramingFunction): string {
  let key = functionKeys.get(fn);
  if (key === undefined) functionKeys.set(fn, (key = `function#${++functionCount}`));
  return key;
}

function headerReader(headers: IHeaders | undefined) {
  return (name: string) => readHeader(headers, name);
}

function text(value: unknown, field: string, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required)
      throw new PoisonError('missing-identity', `${field}: missing (the framing gave none)`);
    return undefined;
  }
  if (typeof value !== 'string')
    throw new PoisonError(
      'validation-failed',
      `${field}: the framing gave a ${typeof value}, not a string`,
    );
  return value;
}

/** The envelope a framing function gives, its fields checked like any framing's. */
function frameWithFunction(
  fn: FramingFunction,
  message: RawMessage,
  decoded?: DecodedValue,
): Envelope {
  const framed: FramedMessage = {
    key: message.key === null ? null : decodeUtf8(message.key, 'key'),
    header: headerReader(message.headers),
    value: readMessageValue(message.value!, decoded, readHeader(message.headers, 'content-type')),
  };
  let event: FramedEvent;
  try {
    event = fn(framed);
  } catch (err) {
    if (err instanceof PoisonError) throw err;
    throw new PoisonError(
      'validation-failed',
      `framing: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (typeof event !== 'object' || event === null)
    throw new PoisonError('missing-identity', 'framing: gave no event');
  const eventType = text(event.eventType, 'eventType', true)!;
  const aggregateId = text(event.aggregateId, 'aggregateId', true)!;
  const version =
    event.aggregateVersion === undefined
      ? undefined
      : parseAggregateVersion(event.aggregateVersion, 'aggregateVersion');
  const eventId =
    text(event.eventId, 'eventId', version === undefined) ?? `${aggregateId}@${version}`;
  return {
    eventId,
    eventType,
    aggregateId,
    ...(version !== undefined ? { aggregateVersion: version } : {}),
    data: event.data,
  };
}

/** The framing a route's spec names. */
export function resolveFraming(spec: FramingSpec | undefined): Framing {
  if (spec === undefined || spec === 'envelope') return ENVELOPE_FRAMING;
  if (typeof spec === 'function')
    return {
      name: 'function',
      key: keyOfFunction(spec),
      frame: (m, d) => frameWithFunction(spec, m, d),
    };
  if (spec === 'cloudevents') return resolveFraming({ kind: 'cloudevents' });
  if (spec === 'debezium-outbox') return resolveFraming({ kind: 'debezium-outbox' });
  const key = `${spec.kind}:${JSON.stringify(spec)}`;
  if (spec.kind === 'cloudevents')
    return { name: spec.kind, key, frame: (m, d) => frameCloudEvent(m, spec, d) };
  return {
    name: spec.kind,
    key,
    frame: (m, d) => frameDebeziumOutbox(m, spec, d),
    readKey: readConnectKey,
  };
}

/**
 * Reads the envelope of one message with `framing`: the bounds every framing has, the
 * framing's own reading, then the rules every event meets (envelope.ts, checkEnvelope).
 * `registryValues`: the topic's values may be in the Schema Registry wire format (routes.ts,
 * readsRegistryValues), so one that was not decoded is poison naming the setting. Never
 * throws: every defect is poison with its reason.
 */
export function frameMessage(
  message: RawMessage,
  framing: Framing,
  options: ParseEnvelopeOptions,
  decoded?: DecodedValue,
  registryValues = true,
): ParseEnvelopeResult {
  return parseFramed(
    message,
    options,
    (m) => {
      if (registryValues && decoded === undefined) rejectUndecodedWireFormat(m.value);
      return framing.frame(m, decoded);
    },
    framing.readKey,
  );
}
