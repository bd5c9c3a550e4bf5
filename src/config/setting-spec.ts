import type { z } from 'zod';

/** One environment variable onceflow reads. */
export interface SettingSpec {
  /** Parses and checks the text; its messages follow the setting's name in a ConfigError. */
  readonly parse: z.ZodType;
  /**
   * The default, written as an operator would set it, and parsed exactly like a set value.
   * Absent: the setting is optional (undefined when unset).
   */
  readonly default?: string;
  /** What the setting does; docs/configuration.md's table says the same in short. */
  readonly doc: string;
  /**
   * How docs/configuration.md's table shows the default when it is not a literal value (derived from
   * other settings, or the local stack's). Default: the default in backquotes, or `–`.
   */
  readonly shownDefault?: string;
  /** Holds a secret: redactConfig hides it, logs never show it. */
  readonly secret?: true;
}
