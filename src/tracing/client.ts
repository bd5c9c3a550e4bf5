import type { WorkflowClientInterceptor } from '@temporalio/client';
import { activeTracing } from './active';

/**
 * The client interceptor that puts the active context into a started workflow's headers
 * (StartWorkflow span); none when tracing is off. Every client is made with it
 * (src/temporal/connection.ts), so the SDK's interceptor package, which brings Temporal's
 * workflow and OpenTelemetry modules, is loaded only by a process that traces.
 */
export function clientTracingInterceptors(): WorkflowClientInterceptor[] {
  if (!activeTracing()) return [];
  type Otel = typeof import('@temporalio/interceptors-opentelemetry');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing (above)
  const otel = require('@temporalio/interceptors-opentelemetry') as Otel;
  return [new otel.OpenTelemetryWorkflowClientInterceptor()];
}
