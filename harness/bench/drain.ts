/**
 * `npm run bench -- --only drain`: the product's backlog drain (drain-run.ts) once per variant
 * asked for (drain-variants.ts; `product` alone by default), then, on the same server, the
 * floor it is read against and any rungs of the floor ladder asked for (floor-ladder.ts).
 * Reports orders/s, CPU ms per order of every process, peak RSS, the shapes of an order's, a
 * payout's and the floor's histories, and the sizes of the tables a drained order writes.
 */
import type { BenchContext } from './bridge';
import { runDrain, type DrainRunResult } from './drain-run';
import type { DrainVariant } from './drain-variants';
import { measureLadder, type LadderRung, type RungResult } from './floor-ladder';
import { round } from './proc-cpu';

export { DRAIN_PARTITIONS } from './drain-run';

export interface DrainOptions {
  orders: number;
  variants: readonly DrainVariant[];
  /** Rows in each growing table before each drain (prefill.ts). */
  prefill: number;
  /** Starts in flight for the floor and the direct variants (BRIDGE_START_CONCURRENCY). */
  concurrency: number;
  /** Payouts sent after the first drain, whose completed runs give the payout's history shape. */
  payouts: number;
  /** Workflows per floor rung. */
  floorWorkflows: number;
  /** The floor ladder's rungs, `empty` and `floor` first. */
  ladder: readonly LadderRung[];
  /** Write V8 CPU profiles of the worker and the bridge (--cpu-prof) into this folder. */
  profileDir?: string;
  /** The stack's own service pids (stack.json): temporal, kafka, postgres. */
  stackPids: Record<string, number>;
}

export interface DrainResult {
  orders: number;
  prefill: number;
  drains: DrainRunResult[];
  ladder: RungResult[];
  /** Each drain's orders/s over the three-activity floor's workflows/s. */
  ratios: Record<string, number>;
  profiles?: string;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function benchDrain(options: DrainOptions, ctx: BenchContext): Promise<DrainResult> {
  const drains: DrainRunResult[] = [];
  for (const [i, variant] of options.variants.entries())
    drains.push(
      await runDrain(
        {
          orders: options.orders,
          variant,
          concurrency: options.concurrency,
          prefill: options.prefill,
          // The payout's history shape once: it does not change with the variant.
          payouts: i === 0 ? options.payouts : 0,
          profileDir: options.profileDir,
          stackPids: options.stackPids,
          log,
        },
        ctx,
      ),
    );
  log('drain: the floor on the same server');
  const ladder = await measureLadder(
    options.ladder,
    {
      n: options.floorWorkflows,
      concurrency: options.concurrency,
      stackPids: options.stackPids,
    },
    ctx,
  );
  const floor = ladder.find((r) => r.rung === 'floor')!;
  return {
    orders: options.orders,
    prefill: options.prefill,
    drains,
    ladder,
    ratios: Object.fromEntries(
      drains.map((d) => [d.variant, round(d.perSecond / floor.perSecond, 2)]),
    ),
    profiles: options.profileDir,
  };
}
