import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type TextMapGetter,
} from '@opentelemetry/api';
import type { IHeaders, KafkaMessage } from 'kafkajs';
import { firstHeaderText } from '../events/headers';
import { activeTracing, tracer } from './active';

/**
 * Reads W3C trace context (`traceparent`, `tracestate`) from Kafka headers through the same
 * defensive reader as the rest of the bridge (src/events/headers.ts): a null, inherited or
 * non-text header counts as absent, and a malformed `traceparent` is ignored by the
 * propagator, so the record then starts a trace of its own.
 */
export const kafkaHeaderGetter: TextMapGetter<IHeaders | undefined> = {
  keys: (headers) => (headers ? Object.keys(headers) : []),
  get: (headers, key) => firstHeaderText(headers, key),
};

/** Writes trace context as Kafka headers (a producer's side; tests and tools). */
export function injectIntoHeaders(headers: IHeaders, ctx: Context = context.active()): IHeaders {
  propagation.inject(ctx, headers, {
    set: (carrier, key, value) => {
      carrier[key] = value;
    },
  });
  return headers;
}

/** The context a record's headers carry: its producer's span as remote parent, or none. */
export function contextOfRecord(headers: IHeaders | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, headers, kafkaHeaderGetter);
}

/** What the bridge's span of one record says: where it came from and what became of it. */
export interface RecordSpanInfo {
  topic: string;
  partition: number;
}

/**
 * Runs the bridge's handling of one record inside its own span, per message (KafkaJS's
 * eachBatch hands over a whole batch, so no instrumentation could do it per record): the
 * span continues the record's `traceparent` when it has one, else starts a trace, and
 * everything awaited inside (the workflow start, the ledger, the DLQ write, log lines) runs in
 * its context. `outcomeOf` names the result on the span. With tracing off it only calls `fn`.
 */
export async function withRecordSpan<T>(
  message: KafkaMessage,
  info: RecordSpanInfo,
  fn: () => Promise<T>,
  outcomeOf: (result: T) => string,
): Promise<T> {
  if (!activeTracing()) return fn();
  const parent = contextOfRecord(message.headers);
  const span = tracer().startSpan(
    `process ${info.topic}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'kafka',
        'messaging.operation.type': 'process',
        'messaging.destination.name': info.topic,
        'messaging.destination.partition.id': String(info.partition),
        'messaging.kafka.offset': Number(message.offset),
        ...(message.key ? { 'messaging.kafka.message.key': message.key.toString('utf8') } : {}),
      },
    },
    parent,
  );
  try {
    const result = await context.with(trace.setSpan(parent, span), fn);
    const outcome = outcomeOf(result);
    span.setAttribute('onceflow.outcome', outcome);
    if (outcome === 'dead-lettered')
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    return result;
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}
