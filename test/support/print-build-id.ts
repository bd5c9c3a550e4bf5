/**
 * `node --import tsx print-build-id.ts`: bundles every registered domain's workflows as the
 * worker does (prepareWorkflowBundle, cached under TMPDIR) and prints the build ID. Run from
 * copies of the package by test/integration/worker/build-id.test.ts.
 */
import { readFileSync } from 'node:fs';
import { buildIdOf } from '../../src/db/workflow-build-store';
import { DOMAINS } from '../../src/domains';
import { prepareWorkflowBundle } from '../../src/worker/workflow-bundle';

prepareWorkflowBundle({ domains: DOMAINS }).then(
  ({ codePath }) => process.stdout.write(`${buildIdOf(readFileSync(codePath, 'utf8'))}\n`),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
