import { UsageError } from './usage-error';

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * Milliseconds of `500ms`, `90s`, `10m`, `2h` or `3d`; undefined for anything else (a bare
 * number included: "10" could mean seconds or minutes). Settings use it through src/config;
 * command lines through parseDuration.
 */
export function parseDurationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  return m ? Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]) : undefined;
}

/** A duration option of a command line; a UsageError naming `option` for anything else. */
export function parseDuration(text: string, option: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined)
    throw new UsageError(`${option} must look like 30s, 10m, 2h or 3d, got ${text}`);
  return ms;
}
