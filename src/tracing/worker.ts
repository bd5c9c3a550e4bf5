import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import { activeTracing } from './active';

/**
 * The SDK's workflow interceptors, bundled into the workflow code when tracing is on
 * (src/worker/bundle-workflows.ts): they run inside the workflow sandbox and hand their spans
 * to the worker through the `exporter` sink below.
 */
export const WORKFLOW_TRACING_MODULE =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/**
 * What the worker adds when tracing is on: activity spans continuing the workflow's context
 * (with `trace_id` on activity log lines) and the sink that exports workflow spans. Nothing
 * when tracing is off.
 */
export function workerTracingOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const tracing = activeTracing();
  if (!tracing) return {};
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
