/** One problem with one setting. */
export interface ConfigProblem {
  setting: string;
  message: string;
}

/**
 * Thrown at start when a setting is missing or malformed; the message names every bad
 * setting, one a line, and may end with a hint (what to run or set instead). Entry points
 * print it as it is, line by line, and exit 78.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly problems: readonly ConfigProblem[],
    options: {
      /** Replaces the list of problems as the message (they stay in `problems`). */
      message?: string;
      /** Lines after the problems: what to do. */
      hint?: string;
    } = {},
  ) {
    super(
      options.message ??
        [
          'Invalid configuration:',
          ...problems.map((p) => `  ${p.setting}: ${p.message}`),
          ...(options.hint ? [options.hint] : []),
        ].join('\n'),
    );
  }
}
