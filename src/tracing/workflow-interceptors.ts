// Workflow interceptors of every build (bundled by src/worker/bundle-options.ts whatever
// ONCEFLOW_TRACING says). A run traces when its start carried a trace context (the bridge or a
// client traced it), and then on every worker: the SDK's OpenTelemetry interceptors make its
// spans, which the worker exports when its own tracing is on (src/tracing/worker.ts) and drops
// when off. So whether a run's workflow code traces is a fact of the run, in its history, not
// of the host replaying it; a host's tracing setting is not part of the build.
import type {
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/** The header the SDK's OpenTelemetry interceptors carry a span context in. */
const TRACE_HEADER = '_tracer-data';

type Otel = typeof import('@temporalio/interceptors-opentelemetry/lib/workflow');

/** The SDK's interceptors for one run, made when its start carried a trace context. */
interface RunTracing {
  inbound: WorkflowInboundCallsInterceptor;
  outbound: WorkflowOutboundCallsInterceptor;
  internals: WorkflowInternalsInterceptor;
}

/** Called by the SDK once per run (each run has its own module state in the sandbox). */
export const interceptors = (): WorkflowInterceptors => {
  let traced: RunTracing | undefined;
  const start = (headers: Record<string, unknown>) => {
    if (traced || headers[TRACE_HEADER] === undefined) return;
    // Loaded here, not at the top: the module patches the sandbox's globals (`window`,
    // `performance`) as it loads, which an untraced run does not need.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded for traced runs only (above)
    const otel = require('@temporalio/interceptors-opentelemetry/lib/workflow') as Otel;
    traced = {
      inbound: new otel.OpenTelemetryInboundInterceptor(),
      outbound: new otel.OpenTelemetryOutboundInterceptor(),
      internals: new otel.OpenTelemetryInternalsInterceptor(),
    };
  };
  const inbound: WorkflowInboundCallsInterceptor = {
    execute: (input, next) => {
      start(input.headers);
      return traced?.inbound.execute ? traced.inbound.execute(input, next) : next(input);
    },
    handleSignal: (input, next) =>
      traced?.inbound.handleSignal ? traced.inbound.handleSignal(input, next) : next(input),
    handleUpdate: (input, next) =>
      traced?.inbound.handleUpdate ? traced.inbound.handleUpdate(input, next) : next(input),
    validateUpdate: (input, next) =>
      traced?.inbound.validateUpdate ? traced.inbound.validateUpdate(input, next) : next(input),
    handleQuery: (input, next) =>
      traced?.inbound.handleQuery ? traced.inbound.handleQuery(input, next) : next(input),
  };
  const outbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) =>
      traced?.outbound.scheduleActivity
        ? traced.outbound.scheduleActivity(input, next)
        : next(input),
    scheduleLocalActivity: (input, next) =>
      traced?.outbound.scheduleLocalActivity
        ? traced.outbound.scheduleLocalActivity(input, next)
        : next(input),
    startNexusOperation: (input, next) =>
      traced?.outbound.startNexusOperation
        ? traced.outbound.startNexusOperation(input, next)
        : next(input),
    startChildWorkflowExecution: (input, next) =>
      traced?.outbound.startChildWorkflowExecution
        ? traced.outbound.startChildWorkflowExecution(input, next)
        : next(input),
    continueAsNew: (input, next) =>
      traced?.outbound.continueAsNew ? traced.outbound.continueAsNew(input, next) : next(input),
    signalWorkflow: (input, next) =>
      traced?.outbound.signalWorkflow ? traced.outbound.signalWorkflow(input, next) : next(input),
    getLogAttributes: (input, next) =>
      traced?.outbound.getLogAttributes
        ? traced.outbound.getLogAttributes(input, next)
        : next(input),
  };
  const internals: WorkflowInternalsInterceptor = {
    dispose: (input, next) =>
      traced?.internals.dispose ? traced.internals.dispose(input, next) : next(input),
  };
  return { inbound: [inbound], outbound: [outbound], internals: [internals] };
};
