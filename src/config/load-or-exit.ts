import { ConfigError, loadConfig, type Config } from './index';

/**
 * For entry points: a bad setting stops the process at start with a message naming it
 * (exit code 78, EX_CONFIG), instead of a stack trace on first use.
 */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
