import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import { activeTracing } from './active';

/**
 * The workflow interceptors of every build (./workflow-interceptors.ts, bundled by
 * src/worker/bundle-options.ts): a run started with a trace context makes its spans inside the
 * sandbox and hands them to the worker through the `exporter` sink below.
 */
export const WORKFLOW_TRACING_MODULE = require.resolve('./workflow-interceptors');

/**
 * What the worker adds: with tracing on, activity spans continuing the workflow's context
 * (with `trace_id` on activity log lines) and the sink that exports workflow spans; with it
 * off, a sink that drops the spans of runs started with a trace context (they trace on every
 * host, so that a build runs the same on all of them).
 */
export function workerTracingOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const tracing = activeTracing();
  if (!tracing) return { sinks: { exporter: { export: { fn: () => undefined } } } };
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
