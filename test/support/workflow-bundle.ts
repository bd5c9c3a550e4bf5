import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DOMAINS } from '../../src/domains';
import type { Domain } from '../../src/engine/define-domain';
import { workflowBundleOptions } from '../../src/worker/bundle-options';
import { workflowEntry } from '../../src/worker/workflow-bundle';

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * The engine's and every registered domain's workflows (or `domains`'), bundled once per test
 * run with the worker's own options (bundling takes seconds; every worker reuses it): the
 * same code as the worker's bundle, so the same build ID.
 */
export function workflowBundle(
  options: { domains?: readonly Domain[] } = {},
): Promise<WorkflowBundleWithSourceMap> {
  const domains = options.domains ?? DOMAINS;
  const id = domains.map((d) => d.workflowsPath).join(',');
  const built = bundles.get(id);
  if (built) return built;
  const bundle = bundleWorkflowCode(workflowBundleOptions(workflowEntry(domains)));
  bundles.set(id, bundle);
  return bundle;
}

/**
 * `code` with a `// <mark>` line of its own: other code, so another build ID, that still loads.
 * The line goes before the inline source map, which the SDK reads to the end of the code: a
 * comment after it is decoded into the map (`/`, `2`, `1` are base64 digits) and, depending on
 * the map's length, breaks its JSON.
 */
export function withChangeMark(code: string, mark: string): string {
  const map = code.lastIndexOf('//# sourceMappingURL=');
  if (map < 0) return `${code}\n// ${mark}`;
  return `${code.slice(0, map)}// ${mark}\n${code.slice(map)}`;
}
