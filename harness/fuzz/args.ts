import { parseDuration } from '../../src/util/duration';
import { parseArgsOrUsage, parsePositiveInt } from '../../src/util/usage-error';

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

export const FUZZ_USAGE =
  'usage: npm run fuzz -- --messages N --seed S [--partitions 3] [--deadline 10m] [--stall 30s] [--skip kind,kind] [--report DIR] [--json]\n';

export function parseFuzzArgs(argv: string[]): FuzzArgs {
  const { values } = parseArgsOrUsage({
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
  });
  return {
    messages: parsePositiveInt(values.messages, '--messages', 2_000),
    seed: parsePositiveInt(values.seed, '--seed', 1),
    partitions: parsePositiveInt(values.partitions, '--partitions', 3),
    deadlineMs:
      values.deadline === undefined ? undefined : parseDuration(values.deadline, '--deadline'),
    stallMs: parseDuration(values.stall ?? '30s', '--stall'),
    reportDir: values.report,
    json: values.json ?? false,
    skip: values.skip ? values.skip.split(',').filter(Boolean) : [],
  };
}
