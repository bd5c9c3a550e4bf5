import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stackPaths } from '../../harness/stack/paths';
import { testConfig } from './services';

const run = promisify(execFile);

/**
 * Runs Temporal's own CLI (the one the stack installed) against the test stack, as an
 * operator would: `temporalCli(['workflow', 'cancel', '-w', id])`. Returns its stdout.
 */
export async function temporalCli(
  args: string[],
  /** Another server than the stack's (a test's own dev server). */
  address?: string,
): Promise<string> {
  const { temporal } = testConfig();
  const { stdout } = await run(
    join(stackPaths().bin, 'temporal'),
    [...args, '--address', address ?? temporal.address, '--namespace', temporal.namespace],
    { timeout: 60_000 },
  );
  return stdout;
}
