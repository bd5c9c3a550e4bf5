import { parseDuration } from '../../src/util/duration';
import { parseArgsOrUsage, parsePositiveInt, UsageError } from '../../src/util/usage-error';

export interface SoakArgs {
  durationMs: number;
  /** Orders per second the soak publishes; unset: half the rate a calibration drain sustains. */
  rate?: number;
  /** Orders of the calibration backlog (the demo's mix), when no rate is given. */
  calibrateOrders: number;
  /** How often rate, latency and RSS are sampled. */
  sampleMs: number;
  seed: number;
  /** Folder of soak.json, soak.md and soak.svg. Default: artifacts/soak. */
  reportDir?: string;
}

export const SOAK_USAGE =
  'usage: npm run soak -- [--duration 60m] [--rate N | --calibrate-orders 400] [--sample 1m] [--seed S] [--report DIR]\n';

export function parseSoakArgs(argv: string[]): SoakArgs {
  const { values } = parseArgsOrUsage({
    args: argv,
    options: {
      duration: { type: 'string' },
      rate: { type: 'string' },
      'calibrate-orders': { type: 'string' },
      sample: { type: 'string' },
      seed: { type: 'string' },
      report: { type: 'string' },
    },
    strict: true,
  });
  const durationMs = parseDuration(values.duration ?? '60m', '--duration');
  const sampleMs = parseDuration(values.sample ?? '1m', '--sample');
  if (sampleMs < 5_000) throw new UsageError('--sample: at least 5s');
  if (durationMs < 3 * sampleMs) throw new UsageError('--duration: at least three samples long');
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  if (rate !== undefined && !(rate > 0 && rate <= 1000))
    throw new UsageError(`--rate: orders per second, above 0, got ${values.rate}`);
  return {
    durationMs,
    ...(rate !== undefined ? { rate } : {}),
    calibrateOrders: parsePositiveInt(values['calibrate-orders'], '--calibrate-orders', 400),
    sampleMs,
    seed: parsePositiveInt(values.seed, '--seed', 1),
    ...(values.report !== undefined ? { reportDir: values.report } : {}),
  };
}
