import { isSpanContextValid, trace, type Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { BasicTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Whether this process traces, for the hooks in the bridge, worker, provider client and
 * sandbox. This module loads only the OpenTelemetry API: with ONCEFLOW_TRACING=off nothing
 * but the `activeTracing()` check runs (no SDK, no context manager, the API's no-op tracer).
 * ./sdk.ts starts the SDK and sets it here.
 */

/** Name of every onceflow tracer (the instrumentation scope shown by trace viewers). */
export const TRACER_NAME = 'onceflow';

/** A started SDK: what the worker hands the SDK's interceptors, and how to flush and stop. */
export interface ActiveTracing {
  provider: BasicTracerProvider;
  /** The processor the workflow spans (made inside the sandbox) are exported through. */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** The service the spans are from (`service.name`). */
  service: string;
}

let active: ActiveTracing | undefined;

/** The started SDK, or undefined while tracing is off. */
export function activeTracing(): ActiveTracing | undefined {
  return active;
}

/** Set by ./sdk.ts only. */
export function setActiveTracing(tracing: ActiveTracing | undefined): void {
  active = tracing;
}

/** onceflow's tracer: the API's no-op tracer until the SDK is registered. */
export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** The trace ID of the span active here, or undefined (tracing off, or no span). */
export function activeTraceId(): string | undefined {
  if (!active) return undefined;
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** Log fields of the active span (`trace_id`, `span_id`); none while tracing is off. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!active) return {};
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** The viewer's page of a trace, from ONCEFLOW_TRACE_URL; undefined without a template. */
export function traceLinkOf(traceId: string, template: string | undefined): string | undefined {
  return template?.split('{traceId}').join(traceId);
}
