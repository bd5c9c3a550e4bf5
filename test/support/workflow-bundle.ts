import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DOMAINS } from '../../src/domains';
import type { Domain } from '../../src/engine/define-domain';
import { resolveFromEngine, workflowEntry } from '../../src/worker/workflow-bundle';

import { WORKFLOW_TRACING_MODULE } from '../../src/tracing/worker';

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * The engine's and every registered domain's workflows (or `domains`'), bundled once per test
 * run (bundling takes seconds; every worker reuses it). `tracing`: with the OpenTelemetry workflow
 * interceptors, as the worker bundles them when ONCEFLOW_TRACING=on.
 */
export function workflowBundle(
  options: { tracing?: boolean; domains?: readonly Domain[] } = {},
): Promise<WorkflowBundleWithSourceMap> {
  const tracing = options.tracing ?? false;
  const domains = options.domains ?? DOMAINS;
  const id = `${tracing}:${domains.map((d) => d.workflowsPath).join(',')}`;
  const built = bundles.get(id);
  if (built) return built;
  const bundle = bundleWorkflowCode({
    workflowsPath: workflowEntry(domains),
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
  bundles.set(id, bundle);
  return bundle;
}
