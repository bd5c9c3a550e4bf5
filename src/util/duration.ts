const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * Milliseconds of `500ms`, `90s`, `10m`, `2h` or `3d`; undefined for anything else (a bare
 * number included: "10" could mean seconds or minutes), so each command line reports it with
 * its own usage error and option name.
 */
export function parseDurationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  return m ? Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]) : undefined;
}
