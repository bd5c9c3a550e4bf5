import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DOMAINS } from '../../src/domains';
import { resolveFromEngine, workflowEntry } from '../../src/worker/workflow-bundle';

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/**
 * The engine's and every registered domain's workflows, bundled once per test run (bundling
 * takes seconds; every worker reuses it).
 */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: workflowEntry(DOMAINS),
    webpackConfigHook: resolveFromEngine,
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    },
  });
  return bundle;
}
