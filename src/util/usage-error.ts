import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * A malformed command line or an unknown command. Every entry point prints its message with
 * its usage text and exits 2 (docs/architecture.md, "Entry points and exit codes").
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A positive integer option (`fallback` when absent); a UsageError naming it otherwise. */
export function parsePositiveInt(text: string | undefined, option: string, fallback: number) {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`${option} must be a positive integer, got ${text}`);
  return n;
}

/** node:util's parseArgs with its errors (unknown or malformed options) as UsageError. */
export function parseArgsOrUsage<T extends ParseArgsConfig>(
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The one positional argument a command takes (`what` names it); a UsageError otherwise. */
export function positional(args: string[], what: string): string {
  if (args.length !== 1) throw new UsageError(`expected exactly one ${what}`);
  return args[0]!;
}
