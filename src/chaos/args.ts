import { parseArgs } from 'node:util';
import { parseDurationMs } from '../util/duration';

export interface ChaosArgs {
  orders: number;
  seed: number;
  durationMs: number;
  /** Report folder; default artifacts/chaos-<run>. */
  reportDir?: string;
  /** Print one JSON summary on stdout (the human output goes to stderr). */
  json: boolean;
}

export class ChaosUsageError extends Error {
  override readonly name = 'ChaosUsageError';
}

export const CHAOS_USAGE =
  'usage: npm run chaos -- --orders N --seed S [--duration 2m] [--report DIR] [--json]\n';

/** "90s", "2m", "1500ms"; a ChaosUsageError for anything else. */
export function parseDuration(text: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined)
    throw new ChaosUsageError(`--duration: expected e.g. 90s or 2m, got "${text}"`);
  return ms;
}

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new ChaosUsageError(`--${name}: expected a positive integer, got "${text}"`);
  return n;
}

export function parseChaosArgs(argv: string[]): ChaosArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        orders: { type: 'string' },
        seed: { type: 'string' },
        duration: { type: 'string' },
        report: { type: 'string' },
        json: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new ChaosUsageError((err as Error).message);
  }
  const durationMs = parseDuration(values.duration ?? '2m');
  if (durationMs < 10_000) throw new ChaosUsageError('--duration: at least 10s');
  return {
    orders: positiveInt('orders', values.orders, 200),
    seed: positiveInt('seed', values.seed, 1),
    durationMs,
    reportDir: values.report,
    json: values.json ?? false,
  };
}
