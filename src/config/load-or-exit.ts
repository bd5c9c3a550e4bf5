import { ConfigError, loadConfig, requireEncryptionKey, type Config } from './index';

export interface LoadOptions {
  /**
   * Whether the process reads or writes Temporal payloads, and so needs an encryption key (or
   * ONCEFLOW_ENCRYPTION=off). Default true; the sandbox providers pass false.
   */
  temporalPayloads?: boolean;
}

/**
 * For entry points: the settings from the environment, else the running local stack, else
 * the defaults (src/config/local-stack.ts). A bad setting, or none at all with no stack
 * running, stops the process at start with a message naming it, printed as lines (exit code
 * 78, EX_CONFIG), instead of a stack trace on first use.
 */
export function loadConfigOrExit(
  env: NodeJS.ProcessEnv = process.env,
  options: LoadOptions = {},
): Config {
  try {
    const config = loadConfig(env, { localStack: true });
    if (options.temporalPayloads !== false) requireEncryptionKey(config);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
