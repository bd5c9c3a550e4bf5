import { parseArgs } from 'node:util';
import { parseDurationMs } from '../util/duration';

export interface FuzzArgs {
  messages: number;
  seed: number;
  partitions: number;
  /** Overall wait for the bridge; undefined = runFuzz's default (60 s + 20 ms per message). */
  deadlineMs?: number;
  /** No progress for this long ends the wait. */
  stallMs: number;
  /** Artifacts folder; default artifacts/fuzz-<run>. */
  reportDir?: string;
  /** Print the JSON report on stdout (the table goes to stderr). */
  json: boolean;
  /** Message kinds not to generate (to look past a known failure). */
  skip: string[];
}

export class FuzzUsageError extends Error {
  override readonly name = 'FuzzUsageError';
}

export const FUZZ_USAGE =
  'usage: npm run fuzz -- --messages N --seed S [--partitions 3] [--deadline 10m] [--stall 30s] [--skip kind,kind] [--report DIR] [--json]\n';

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new FuzzUsageError(`--${name}: expected a positive integer, got "${text}"`);
  return n;
}

function duration(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDurationMs(text);
  if (ms === undefined)
    throw new FuzzUsageError(`--${name}: expected e.g. 90s or 5m, got "${text}"`);
  return ms;
}

export function parseFuzzArgs(argv: string[]): FuzzArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        messages: { type: 'string' },
        seed: { type: 'string' },
        partitions: { type: 'string' },
        deadline: { type: 'string' },
        stall: { type: 'string' },
        report: { type: 'string' },
        json: { type: 'boolean' },
        skip: { type: 'string' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new FuzzUsageError((err as Error).message);
  }
  return {
    messages: positiveInt('messages', values.messages, 2_000),
    seed: positiveInt('seed', values.seed, 1),
    partitions: positiveInt('partitions', values.partitions, 3),
    deadlineMs: duration('deadline', values.deadline),
    stallMs: duration('stall', values.stall) ?? 30_000,
    reportDir: values.report,
    json: values.json ?? false,
    skip: values.skip ? values.skip.split(',').filter(Boolean) : [],
  };
}
