import { ConfigError, type ConfigProblem } from './config-error';
import type { SettingName } from './env';
import type { LivenessProbe } from './local-stack-file';
import { lookUpLocalStack, namesNoServices, whatToRun, type LocalStackLookup } from './local-stack';
import type { SettingSpec } from './setting-spec';
import { SETTINGS } from './settings';

/** Where a setting's value came from, in the order they are tried. */
export type SettingSource = 'environment' | 'local stack' | 'default';

/** Where the settings came from: safe to log (names and sources, never values). */
export interface ConfigOrigin {
  localStack: {
    /** `used`, `off` (ruled out by a setting), `none` (none running), `not-looked-up`. */
    status: 'used' | 'off' | 'none' | 'not-looked-up';
    /**
     * `used`: the state file and when that stack started; `off`: the setting that rules the
     * stack out; `none`: what was found instead.
     */
    detail: string;
  };
  /** Names of the settings that have a value, by source. */
  sources: Record<SettingSource, SettingName[]>;
}

/** The environment to parse (the stack's values under the environment's) and its origin. */
export interface LayeredSettings {
  env: NodeJS.ProcessEnv;
  origin: ConfigOrigin;
}

const NAMES = Object.keys(SETTINGS) as SettingName[];
const isSet = (env: NodeJS.ProcessEnv, name: string) => (env[name] ?? '') !== '';

/**
 * Layers the settings: each variable set in `env` wins; with `localStack`, an unset one takes
 * the running local stack's value (./local-stack.ts says when it is looked for); defaults come
 * last (parseEnv). Throws ConfigError with what to run when the lookup finds no running stack
 * and the environment names no services either.
 */
export function layerSettings(
  env: NodeJS.ProcessEnv,
  localStack: boolean | LivenessProbe = false,
): LayeredSettings {
  const lookup = localStack
    ? lookUpLocalStack(env, localStack === true ? {} : localStack)
    : undefined;
  if (lookup?.status === 'none' && namesNoServices(env)) {
    throw new ConfigError(
      [
        {
          setting: 'TEMPORAL_ADDRESS, KAFKA_BROKERS, DATABASE_URL, ONCEFLOW_ENCRYPTION_KEYS',
          message: `not set, and no local stack is running (${lookup.reason})`,
        },
      ],
      { message: whatToRun(lookup.reason) },
    );
  }
  const fromStack: Partial<Record<string, string>> =
    lookup?.status === 'used' ? lookup.settings : {};
  const layered: NodeJS.ProcessEnv = { ...env };
  const sources: ConfigOrigin['sources'] = { environment: [], 'local stack': [], default: [] };
  for (const name of NAMES) {
    if (isSet(env, name)) sources.environment.push(name);
    else if (fromStack[name]) {
      layered[name] = fromStack[name];
      sources['local stack'].push(name);
    } else if ((SETTINGS[name] as SettingSpec).default !== undefined) sources.default.push(name);
  }
  return {
    env: layered,
    origin: {
      localStack: lookup
        ? { status: lookup.status, detail: detailOf(lookup) }
        : { status: 'not-looked-up', detail: 'environment and defaults only' },
      sources,
    },
  };
}

function detailOf(lookup: LocalStackLookup): string {
  return lookup.status === 'used'
    ? `${lookup.stateFile} (started ${lookup.startedAt})`
    : lookup.reason;
}

/** A bad value the operator never set says where it came from (the local stack's file). */
export function fromStackNamed(problems: ConfigProblem[], origin: ConfigOrigin): ConfigProblem[] {
  const fromStack: readonly string[] = origin.sources['local stack'];
  return problems.map((p) =>
    fromStack.includes(p.setting)
      ? { ...p, message: `${p.message} (value from the local stack: ${origin.localStack.detail})` }
      : p,
  );
}

/** Why the local stack's dev key was not used, when it was looked for. */
export function keyHintOf(origin: ConfigOrigin | undefined): string | undefined {
  const stack = origin?.localStack;
  switch (stack?.status) {
    case 'off':
      return `(The local stack and its dev key are not used: ${stack.detail}.)`;
    case 'none':
      return whatToRun(stack.detail);
    case 'used':
      return `(The local stack ${stack.detail} records no key ring.)`;
    default:
      return undefined;
  }
}
