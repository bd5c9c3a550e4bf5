import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** src/workflows bundled once per test run (bundling takes seconds; every worker reuses it). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: require.resolve('../../src/workflows'),
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
