import { createInterface } from 'node:readline/promises';
import { UsageError } from './output';

/**
 * Asks "… [y/N]" on the terminal; `--yes` skips it. Without a terminal (a pipe, a script,
 * stdin closed) there is nobody to ask, so the command refuses rather than guess: a bulk
 * action must be confirmed explicitly.
 */
export async function confirmAction(question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!process.stdin.isTTY) {
    throw new UsageError(
      `${question} needs confirmation, but stdin is not a terminal: confirm with --yes (check the selection with --dry-run first)`,
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
