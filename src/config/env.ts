import { z } from 'zod';
import type { ConfigProblem } from './config-error';
import type { SettingSpec } from './setting-spec';
import { SETTINGS } from './settings';

type Settings = typeof SETTINGS;

/** Names of the settings that have a default. */
type Defaulted = {
  [K in keyof Settings]: Settings[K] extends { default: string } ? K : never;
}[keyof Settings];

/** Every setting parsed: defaulted ones always present, the others when set. */
export type Env = { [K in Defaulted]: z.output<Settings[K]['parse']> } & {
  [K in Exclude<keyof Settings, Defaulted>]?: z.output<Settings[K]['parse']>;
};

/** Name of a setting. */
export type SettingName = keyof Settings;

const NAMES = Object.keys(SETTINGS) as SettingName[];

/** Names of every environment variable the config module reads. */
export const CONFIG_KEYS: readonly string[] = NAMES;

/** The default of every setting that has one, as the text an operator would set. */
export const DEFAULTS = Object.fromEntries(
  Object.entries(SETTINGS).flatMap(([name, spec]) =>
    'default' in spec ? [[name, spec.default]] : [],
  ),
) as { readonly [K in Defaulted]: Settings[K]['default'] };

/** Optional settings may be absent; defaulted ones are filled in before parsing. */
const envSchema = z.object(
  Object.fromEntries(
    Object.entries(SETTINGS).map(([name, spec]) => [
      name,
      'default' in spec ? spec.parse : spec.parse.optional(),
    ]),
  ),
);

/** One problem with one setting (the shape ConfigError carries). */
export type SettingProblem = ConfigProblem;

/**
 * Parses the settings from an environment. Empty strings count as unset (a blank line in an
 * env file must not override a default); a default is parsed exactly like a set value.
 */
export function parseEnv(
  env: NodeJS.ProcessEnv,
): { ok: true; env: Env } | { ok: false; problems: SettingProblem[] } {
  const present = Object.fromEntries(
    NAMES.flatMap((name) => {
      const value = env[name];
      if (value !== undefined && value !== '') return [[name, value]];
      const spec: SettingSpec = SETTINGS[name];
      return spec.default !== undefined ? [[name, spec.default]] : [];
    }),
  );
  const parsed = envSchema.safeParse(present);
  if (parsed.success) return { ok: true, env: parsed.data as Env };
  return {
    ok: false,
    problems: parsed.error.issues.map((i) => ({ setting: String(i.path[0]), message: i.message })),
  };
}

/** The default as the configuration table (docs/configuration.md) shows it. */
export function shownDefaultOf(name: SettingName): string {
  const spec: SettingSpec = SETTINGS[name];
  if (spec.shownDefault !== undefined) return spec.shownDefault;
  return spec.default !== undefined ? `\`${spec.default}\`` : '–';
}
