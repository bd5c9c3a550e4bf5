import { parseDuration } from '../../src/util/duration';
import { parseArgsOrUsage, parsePositiveInt, UsageError } from '../../src/util/usage-error';

export interface ChaosArgs {
  orders: number;
  seed: number;
  durationMs: number;
  /** Tenants the orders are spread over, round-robin (`tenant-0`, …); 0: none. */
  tenants: number;
  /** Report folder; default artifacts/chaos-<run>. */
  reportDir?: string;
  /** Print one JSON summary on stdout (the human output goes to stderr). */
  json: boolean;
}

export const CHAOS_USAGE =
  'usage: npm run chaos -- --orders N --seed S [--duration 2m] [--tenants N] [--report DIR] [--json]\n';

export function parseChaosArgs(argv: string[]): ChaosArgs {
  const { values } = parseArgsOrUsage({
    args: argv,
    options: {
      orders: { type: 'string' },
      seed: { type: 'string' },
      duration: { type: 'string' },
      tenants: { type: 'string' },
      report: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const durationMs = parseDuration(values.duration ?? '2m', '--duration');
  if (durationMs < 10_000) throw new UsageError('--duration: at least 10s');
  return {
    orders: parsePositiveInt(values.orders, '--orders', 200),
    seed: parsePositiveInt(values.seed, '--seed', 1),
    durationMs,
    tenants: values.tenants === undefined ? 0 : parsePositiveInt(values.tenants, '--tenants', 1),
    reportDir: values.report,
    json: values.json ?? false,
  };
}
