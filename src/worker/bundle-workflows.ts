/**
 * Child process of prepareWorkflowBundle: `bundle-workflows <out.js>` bundles src/workflows and
 * writes it atomically (temporary file, then rename).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';

async function main(out: string | undefined): Promise<void> {
  if (!out) throw new Error('usage: bundle-workflows <out.js>');
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
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

main(process.argv[2]).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
