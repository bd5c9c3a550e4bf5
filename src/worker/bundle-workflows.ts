/**
 * Child process of prepareWorkflowBundle: `bundle-workflows <entry> <out.js> [--tracing]`
 * bundles the workflows entry (src/worker/workflow-bundle.ts, workflowEntry), with
 * `--tracing` also the OpenTelemetry workflow interceptors, and writes it atomically
 * (temporary file, then rename).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';
import { resolveFromEngine } from './workflow-bundle';
import { WORKFLOW_TRACING_MODULE } from '../tracing/worker';

async function main(
  entry: string | undefined,
  out: string | undefined,
  tracing: boolean,
): Promise<void> {
  if (!entry || !out) throw new Error('usage: bundle-workflows <entry> <out.js>');
  const { code } = await bundleWorkflowCode({
    workflowsPath: entry,
    workflowInterceptorModules: tracing ? [WORKFLOW_TRACING_MODULE] : [],
    webpackConfigHook: resolveFromEngine,
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => process.stderr.write(`${message}\n`),
      error: (message) => process.stderr.write(`${message}\n`),
    },
  });
  const temporary = `${out}.${process.pid}.tmp`;
  writeFileSync(temporary, code);
  renameSync(temporary, out);
}

main(process.argv[2], process.argv[3], process.argv[4] === '--tracing').catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
