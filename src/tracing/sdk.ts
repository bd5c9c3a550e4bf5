import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config';
import { activeTracing, setActiveTracing, type ActiveTracing } from './active';

/** The tracing part of Config (ONCEFLOW_TRACING and the OTEL_* settings). */
export type TracingConfig = Config['tracing'];

/*
 * The SDK's packages (about 200 modules), required only by a process that traces: with
 * ONCEFLOW_TRACING=off a bridge or worker carries the API alone for its whole life.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand (above) */
const sdk = () => ({
  ...(require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks')),
  ...(require('@opentelemetry/core') as typeof import('@opentelemetry/core')),
  ...(require('@opentelemetry/resources') as typeof import('@opentelemetry/resources')),
  ...(require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base')),
});
const exporters = () => ({
  ...(require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')),
  ...(require('@opentelemetry/exporter-zipkin') as typeof import('@opentelemetry/exporter-zipkin')),
});
/* eslint-enable @typescript-eslint/no-require-imports */

function exporterFor(config: TracingConfig): SpanExporter {
  const { OTLPTraceExporter, ZipkinExporter } = exporters();
  if (config.exporter === 'zipkin') return new ZipkinExporter({ url: config.zipkinEndpoint });
  // The exporter reads OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT, their
  // headers and timeouts from the environment itself, as every OpenTelemetry SDK does; the
  // setting is passed only when it came from elsewhere (never, today) or no traces URL is set.
  const env = process.env;
  return new OTLPTraceExporter(
    config.otlpEndpoint && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
      ? { url: `${config.otlpEndpoint.replace(/\/+$/, '')}/v1/traces` }
      : {},
  );
}

/**
 * Starts the OpenTelemetry SDK for this process when `config.on`: W3C trace context, an
 * AsyncLocalStorage context manager, batched export (OTLP or Zipkin). Starts nothing and
 * returns undefined when tracing is off. Once per process: a second call returns the first.
 *
 * Example: `startTracing('onceflow-bridge', config.tracing)`.
 */
export function startTracing(
  service: string,
  config: TracingConfig,
  options: {
    /** Replaces the configured exporter (tests). */
    exporter?: SpanExporter;
  } = {},
): ActiveTracing | undefined {
  if (!config.on) return undefined;
  const running = activeTracing();
  if (running) return running;
  const {
    AsyncLocalStorageContextManager,
    BasicTracerProvider,
    BatchSpanProcessor,
    Resource,
    W3CTraceContextPropagator,
  } = sdk();
  const resource = new Resource({ 'service.name': service });
  const spanProcessor = new BatchSpanProcessor(options.exporter ?? exporterFor(config), {
    scheduledDelayMillis: 1000,
  });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({
    contextManager: new AsyncLocalStorageContextManager(),
    propagator: new W3CTraceContextPropagator(),
  });
  const tracing = { provider, spanProcessor, resource, service };
  setActiveTracing(tracing);
  return tracing;
}

/** Exports what is buffered (before a process exits, or a test looks). */
export async function flushTracing(): Promise<void> {
  await activeTracing()?.provider.forceFlush();
}

/** Flushes and stops the SDK and unregisters it: the process is back to the no-op tracer. */
export async function stopTracing(): Promise<void> {
  const current = activeTracing();
  if (!current) return;
  setActiveTracing(undefined);
  try {
    await current.provider.shutdown();
  } finally {
    trace.disable();
    context.disable();
    propagation.disable();
  }
}
