import { loadConfigOrExit } from '../../src/config/load-or-exit';
import { startStack, type RunningStack } from '../stack/stack';
import { prepareServices } from '../../src/setup/prepare-services';
import { DOMAINS } from '../../src/domains';

/**
 * Starts the local stack (or reuses the running one) and prepares it for onceflow: its
 * connection settings go into this process's environment, so the config loaded here and the
 * child processes started later (bridge, worker, sandbox) use it; then migrations and topics.
 * For the demo, chaos, fuzz, bench, the test runner and `npm run stack`; the stack itself
 * knows nothing of onceflow's schema.
 */
export async function startPreparedStack(): Promise<RunningStack> {
  const stack = await startStack();
  Object.assign(process.env, stack.state.env);
  await prepareServices(loadConfigOrExit(), DOMAINS);
  return stack;
}
