import { randomUUID } from 'node:crypto';
import type { IHeaders } from 'kafkajs';
import { HEADER } from './envelope';

/** One event as a producer sends it (docs/architecture.md, "Event contract"). */
export interface EventSpec<TData = unknown> {
  eventId?: string;
  eventType: string;
  aggregateId: string;
  aggregateVersion?: number;
  data: TData;
}

/** How the identity travels: headers (preferred) or top-level JSON fields beside `data`. */
export type EnvelopeStyle = 'headers' | 'body';

export interface KafkaRecord {
  key: string;
  value: string;
  headers: IHeaders;
}

/** A contract-conforming Kafka message for an event. The event ID defaults to a fresh UUID. */
export function buildEventMessage(spec: EventSpec, style: EnvelopeStyle = 'headers'): KafkaRecord {
  const eventId = spec.eventId ?? randomUUID();
  if (style === 'body') {
    return {
      key: spec.aggregateId,
      value: JSON.stringify({
        eventId,
        eventType: spec.eventType,
        aggregateId: spec.aggregateId,
        ...(spec.aggregateVersion !== undefined ? { aggregateVersion: spec.aggregateVersion } : {}),
        data: spec.data,
      }),
      headers: { [HEADER.contentType]: 'application/json' },
    };
  }
  const headers: IHeaders = {
    [HEADER.eventId]: eventId,
    [HEADER.eventType]: spec.eventType,
    [HEADER.aggregateId]: spec.aggregateId,
    [HEADER.contentType]: 'application/json',
  };
  if (spec.aggregateVersion !== undefined)
    headers[HEADER.aggregateVersion] = String(spec.aggregateVersion);
  return { key: spec.aggregateId, value: JSON.stringify({ data: spec.data }), headers };
}
