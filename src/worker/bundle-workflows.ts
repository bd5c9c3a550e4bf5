/**
 * Child process of prepareWorkflowBundle: `bundle-workflows <entry> <out.js>` bundles the
 * workflows entry (src/worker/workflow-bundle.ts, workflowEntry) with onceflow's bundle
 * options (./bundle-options.ts) and writes it atomically (temporary file, then rename).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from './bundle-options';

async function main(entry: string | undefined, out: string | undefined): Promise<void> {
  if (!entry || !out) throw new Error('usage: bundle-workflows <entry> <out.js>');
  const { code } = await bundleWorkflowCode(
    workflowBundleOptions(entry, (line) => process.stderr.write(`${line}\n`)),
  );
  const temporary = `${out}.${process.pid}.tmp`;
  writeFileSync(temporary, code);
  renameSync(temporary, out);
}

main(process.argv[2], process.argv[3]).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
