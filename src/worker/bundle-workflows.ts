/**
 * Child process of prepareWorkflowBundle: `bundle-workflows <entry> <out.js>` bundles the
 * workflows entry (src/worker/workflow-bundle.ts, workflowEntry) and writes it atomically
 * (temporary file, then rename).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';
import { resolveFromEngine } from './workflow-bundle';

async function main(entry: string | undefined, out: string | undefined): Promise<void> {
  if (!entry || !out) throw new Error('usage: bundle-workflows <entry> <out.js>');
  const { code } = await bundleWorkflowCode({
    workflowsPath: entry,
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

main(process.argv[2], process.argv[3]).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
