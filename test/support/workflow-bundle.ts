import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DOMAINS } from '../../src/domains';
import { resolveFromEngine, workflowEntry } from '../../src/worker/workflow-bundle';

import { WORKFLOW_TRACING_MODULE } from '../../src/tracing/worker';

const bundles = new Map<boolean, Promise<WorkflowBundleWithSourceMap>>();

/**
 * The engine's and every registered domain's workflows, bundled once per test run (bundling
 * takes seconds; every worker reuses it). `tracing`: with the OpenTelemetry workflow
 * interceptors, as the worker bundles them when ONCEFLOW_TRACING=on.
 */
export function workflowBundle(
  options: { tracing?: boolean } = {},
): Promise<WorkflowBundleWithSourceMap> {
  const tracing = options.tracing ?? false;
  const built = bundles.get(tracing);
  if (built) return built;
  const bundle = bundleWorkflowCode({
    workflowsPath: workflowEntry(DOMAINS),
    webpackConfigHook: resolveFromEngine,
    workflowInterceptorModules: tracing ? [WORKFLOW_TRACING_MODULE] : [],
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    },
  });
  bundles.set(tracing, bundle);
  return bundle;
}
