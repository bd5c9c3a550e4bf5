/** Thrown at start when a setting is missing or malformed; the message names every bad setting. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: ReadonlyArray<{ setting: string; message: string }>) {
    super(
      `Invalid configuration:\n${problems.map((p) => `  ${p.setting}: ${p.message}`).join('\n')}`,
    );
  }
}
