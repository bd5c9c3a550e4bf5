/**
 * The drain's variants (`npm run bench -- --only drain --variants ...`): the product drained
 * with one per-order extra turned off (or on), each through a switch that exists for a reason
 * of its own, so the product grows no bench-only branch:
 *
 * - a setting an operator sets (WORKER_VERSIONING, ONCEFLOW_TRACING, ONCEFLOW_ENCRYPTION,
 *   WORKER_MAX_CACHED_WORKFLOWS, glibc's MALLOC_ARENA_MAX), given to the worker and the bridge
 *   as their environment, or the worker's heap limit (start:worker's --max-old-space-size);
 * - who starts the orders' workflows: the bridge from the topic (production), or the bench
 *   itself with the bridge's own start call (`direct`: no Kafka consumption, no ledger), or
 *   with that call stripped of its start metadata (`direct-bare`: no memo, summary, details,
 *   and no search attribute but EventId, which tells the workflow it was started by a
 *   starter that set them, so it upserts none itself).
 *
 * What lives inside the workflow (activity summaries, the claim and settle local activities,
 * the publish step) cannot be switched without a branch in the run; it is measured from the
 * floor up instead (floor-ladder.ts).
 */

/** Who starts the drained orders' workflows. */
export type DrainStarter = 'bridge' | 'direct' | 'direct-bare';

export interface DrainVariant {
  name: string;
  /** What this variant turns off (or on) against `product`, for the table. */
  what: string;
  /** Who starts the workflows. */
  starter: DrainStarter;
  /** Settings of the worker and the bridge, on top of the stack's. */
  env: Readonly<Record<string, string>>;
  /** Spans go to a sink of the bench's that accepts and drops them (OTLP over HTTP). */
  traceSink?: boolean;
  /** Node flags of the worker after start:worker's own (so they win: a heap limit). */
  workerFlags?: readonly string[];
}

/** Every variant, by name; `product` is the one the figures of docs/performance.md are. */
export const DRAIN_VARIANTS: Readonly<Record<string, DrainVariant>> = {
  product: {
    name: 'product',
    what: 'as shipped: bridge from Kafka, ledger, pinned build, encryption, tracing off',
    starter: 'bridge',
    env: {},
  },
  'no-versioning': {
    name: 'no-versioning',
    what: 'WORKER_VERSIONING=off: no worker deployment, runs not pinned to a build',
    starter: 'bridge',
    env: { WORKER_VERSIONING: 'off' },
  },
  'no-encryption': {
    name: 'no-encryption',
    what: 'ONCEFLOW_ENCRYPTION=off: payloads in plaintext (no AES-GCM codec)',
    starter: 'bridge',
    env: { ONCEFLOW_ENCRYPTION: 'off' },
  },
  tracing: {
    name: 'tracing',
    what: 'ONCEFLOW_TRACING=on: a trace per order, exported over OTLP to a sink that drops it',
    starter: 'bridge',
    env: { ONCEFLOW_TRACING: 'on', OTEL_TRACES_EXPORTER: 'otlp' },
    traceSink: true,
  },
  'cache-50': {
    name: 'cache-50',
    what: 'WORKER_MAX_CACHED_WORKFLOWS=50 (default 250): the sticky cache against RSS',
    starter: 'bridge',
    env: { WORKER_MAX_CACHED_WORKFLOWS: '50' },
  },
  'heap-256': {
    name: 'heap-256',
    what: "the worker's heap limit 256 MiB (start:worker's is 512): its RSS against its GC",
    starter: 'bridge',
    env: {},
    workerFlags: ['--max-old-space-size=256'],
  },
  ...Object.fromEntries(
    [2, 4, 64].map((mib) => [
      `young-${mib}`,
      {
        name: `young-${mib}`,
        what: `the worker's semi-spaces at ${mib} MiB (start:worker's are 8; 64 is V8's own sizing for a 512 MiB heap here): RSS against scavenges`,
        starter: 'bridge' as const,
        env: {},
        workerFlags: [`--max-semi-space-size=${mib}`],
      },
    ]),
  ),
  'malloc-arenas-2': {
    name: 'malloc-arenas-2',
    what: "MALLOC_ARENA_MAX=2 (glibc's default is 8 per core): fewer malloc arenas for the core's and V8's threads",
    starter: 'bridge',
    env: { MALLOC_ARENA_MAX: '2' },
  },
  direct: {
    name: 'direct',
    what: "no bridge: the bench starts each order with the bridge's own start call (no Kafka consumption, no ledger write)",
    starter: 'direct',
    env: {},
  },
  'direct-bare': {
    name: 'direct-bare',
    what: 'as direct, and the start carries no memo, summary, details or search attribute but EventId',
    starter: 'direct-bare',
    env: {},
  },
};

/** The variants named in `--variants a,b` (default: `product`); an unknown name is refused. */
export function parseVariants(value: string | undefined): DrainVariant[] {
  const names = (value ?? 'product')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) throw new Error('--variants: name at least one variant');
  return names.map((n) => {
    const v = DRAIN_VARIANTS[n];
    if (!v)
      throw new Error(
        `--variants: unknown variant "${n}" (known: ${Object.keys(DRAIN_VARIANTS).join(', ')})`,
      );
    return v;
  });
}
