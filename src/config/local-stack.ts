import { existsSync } from 'node:fs';
import {
  LOCAL_STACK_SETTINGS,
  localStackDir,
  localStackFileIn,
  localStackLiveness,
  readLocalStackFile,
  type LivenessProbe,
  type LocalStackSetting,
} from './local-stack-file';

/**
 * The running local stack as a source of settings, as the `temporal` CLI finds localhost:
 * after `npm run stack` or the demo, every command works in a new shell with nothing
 * exported. The rule (docs/configuration.md, "Where each value comes from"):
 *
 * 1. A variable set in the environment wins, each one.
 * 2. Otherwise the running local stack's value (its addresses, dev key ring, providers' admin
 *    token), read from `<ONCEFLOW_STATE_DIR or .onceflow>/stack.json`, and only while that
 *    stack runs (./local-stack-file.ts, localStackLiveness).
 * 3. Otherwise the built-in default.
 *
 * Never in production: the lookup is off when ONCEFLOW_LOCAL_STACK=off, when
 * NODE_ENV=production, or when any service address is set (a process pointed at one real
 * service is pointed at a deployment, and must not get the others from a dev stack).
 */

/** Settings that name a process's services: any one set turns the lookup off. */
export const SERVICE_SETTINGS = ['TEMPORAL_ADDRESS', 'KAFKA_BROKERS', 'DATABASE_URL'] as const;

/** What the lookup found. */
export type LocalStackLookup =
  /** Found running: `settings` are its values (empty ones left out). */
  | {
      status: 'used';
      stateFile: string;
      startedAt: string;
      settings: Partial<Record<LocalStackSetting, string>>;
    }
  /** Not consulted, and why (a setting says so). */
  | { status: 'off'; reason: string }
  /** Consulted, and no running stack there; `reason` says what was found instead. */
  | { status: 'none'; stateFile: string; reason: string };

const isSet = (env: NodeJS.ProcessEnv, name: string) => (env[name] ?? '') !== '';

/** Why the lookup is off for this environment, or undefined when it may look. */
function offReason(env: NodeJS.ProcessEnv): string | undefined {
  if (env.ONCEFLOW_LOCAL_STACK?.trim().toLowerCase() === 'off') return 'ONCEFLOW_LOCAL_STACK=off';
  if (env.NODE_ENV === 'production') return 'NODE_ENV=production';
  const named = SERVICE_SETTINGS.filter((name) => isSet(env, name));
  if (named.length > 0) return `${named.join(', ')} ${named.length === 1 ? 'is' : 'are'} set`;
  return undefined;
}

/** Looks for a running local stack, unless the environment rules it out (see above). */
export function lookUpLocalStack(
  env: NodeJS.ProcessEnv,
  probe: LivenessProbe = {},
): LocalStackLookup {
  const off = offReason(env);
  if (off) return { status: 'off', reason: off };
  const stateFile = localStackFileIn(localStackDir(env));
  const record = readLocalStackFile(stateFile);
  if (!record) {
    return {
      status: 'none',
      stateFile,
      reason: existsSync(stateFile)
        ? `${stateFile} is not a stack's state file`
        : `no stack recorded in ${stateFile}`,
    };
  }
  const liveness = localStackLiveness(record, probe);
  if (!liveness.running) {
    return {
      status: 'none',
      stateFile,
      reason: `the local stack recorded in ${stateFile} is not running: ${liveness.reason}`,
    };
  }
  const settings: Partial<Record<LocalStackSetting, string>> = {};
  for (const name of LOCAL_STACK_SETTINGS) {
    const value = record.env[name];
    if (value) settings[name] = value;
  }
  return { status: 'used', stateFile, startedAt: record.startedAt, settings };
}

/**
 * True when nothing in the environment says which services to use or how to read their
 * payloads: no service address and no encryption setting. With no running stack either, the
 * loopback defaults would only lead to a connection refused, so the process stops and says
 * what to run instead.
 */
export function namesNoServices(env: NodeJS.ProcessEnv): boolean {
  return ![
    ...SERVICE_SETTINGS,
    'ONCEFLOW_ENCRYPTION',
    'ONCEFLOW_ENCRYPTION_KEYS',
    'ONCEFLOW_ENCRYPTION_KEY_FILE',
  ].some((name) => isSet(env, name));
}

/**
 * What to run or set, for a process that found neither settings nor a running stack; `reason`
 * says what the lookup found instead (no state file, or a stack that is not running).
 */
export function whatToRun(reason: string): string {
  return [
    `No settings and no running local stack (${reason}). Either`,
    '  start the local stack:  npm run stack   (or bash scripts/demo.sh, which also runs the demo)',
    '  or name the services:   TEMPORAL_ADDRESS, KAFKA_BROKERS, DATABASE_URL and ONCEFLOW_ENCRYPTION_KEYS',
    '                          (docs/configuration.md)',
  ].join('\n');
}
