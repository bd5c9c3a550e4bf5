import { traceOfDetails } from '../../src/kafka-bridge/workflow-starter';
import { redactUrl } from '../../src/config';
import { loadConfigOrExit } from '../../src/config/load-or-exit';
import { startPreparedStack } from '../setup/dev-stack';
import { waitFor } from '../../src/util/wait';
import { connectClient } from '../../src/temporal/connection';
import { SEARCH_ATTRIBUTE, visibility } from '../../src/temporal/search-attributes';
import { COMPLETED_STEP, stepTerm } from '../../src/temporal/run-step';
import { workflowListUrl } from '../../src/temporal/ui-links';
import { createPool } from '../../src/db/pool';
import { readStock } from '../../src/domains/orders/inventory/stock-store';
import { createKafka } from '../../src/kafka/kafka-client';
import { publishPerPartition } from '../../src/kafka/send-per-partition';
import {
  pickPipelineEndpoints,
  startComponent,
  stopComponent,
  waitForHttp,
  type Component,
} from '../pipeline/components';
import { buildScenario, seedStock } from '../pipeline/scenario';
import {
  checkInvariants,
  type CartFacts,
  type OrderFacts,
  type PayoutFacts,
} from '../pipeline/invariants';
import { readCartFacts } from '../pipeline/cart-facts';
import { listOrderClaims } from '../../src/domains/orders/order-claim-store';
import { listClaims } from '../../src/db/entity-claim-store';
import { PAYOUTS_DOMAIN } from '../../src/domains/payouts/workflows/payout-names';
import { payoutRequestedRoute } from '../../src/domains/payouts/routes';
import {
  countRunWorkflows,
  readEntityRuns,
  readDlqByReason,
  readOrderEffects,
  readOrderSteps,
  scrapeCounter,
} from '../pipeline/observe';
import { createProgress } from '../../src/util/progress';
import { parseArgsOrUsage, parsePositiveInt, UsageError } from '../../src/util/usage-error';
import { dlqTopicOf } from '../../src/events/dlq-topic';
import { withAvroOrders } from '../tools/order-avro';

const DEMO_USAGE = 'usage: npm run demo -- [--orders 300] [--seed 1] [--avro-share 0.2] [--stop]\n';

/** The share of orders published as Avro when the stack runs a registry (none without one). */
const DEFAULT_AVRO_SHARE = 0.2;

/** `--avro-share`: a fraction 0..1; without a registry only 0 is possible. */
function parseAvroShare(text: string | undefined, registry: boolean): number {
  if (text === undefined) return registry ? DEFAULT_AVRO_SHARE : 0;
  const share = Number(text);
  if (!(share >= 0 && share <= 1))
    throw new UsageError(`--avro-share must be a fraction from 0 to 1, got ${text}`);
  if (share > 0 && !registry)
    throw new UsageError(
      '--avro-share needs a schema registry: the stack runs none (ONCEFLOW_SCHEMA_REGISTRY=off) and SCHEMA_REGISTRY_URL is unset',
    );
  return share;
}

/**
 * `npm run demo`: the whole pipeline on the embedded local stack. Installs and starts the
 * stack when needed, runs the sandbox providers, a worker and the bridge as their own
 * processes, publishes a few hundred orders (with duplicates, re-emits, poison, declined
 * cards, scarce stock and cancellations) and payouts beside them (re-sends, blocked
 * beneficiaries, cancellations, poison), waits until every workflow has finished, checks the
 * invariants and prints a summary and the Web UI address. Exits 1 if an invariant is broken.
 * The stack stays up for the Web UI (`npm run stack:stop`); `-- --stop` stops it.
 */
async function main(): Promise<number> {
  const { values } = parseArgsOrUsage({
    options: {
      orders: { type: 'string' },
      seed: { type: 'string' },
      'avro-share': { type: 'string' },
      stop: { type: 'boolean' },
    },
  });
  const orderCount = parsePositiveInt(values.orders, '--orders', 300);
  const seed = Number(values.seed ?? 1);
  const started = Date.now();
  const stack = await startPreparedStack();
  const config = loadConfigOrExit();
  const avroShare = parseAvroShare(values['avro-share'], config.schemaRegistry !== undefined);
  const pool = createPool(config.database, { schema: config.database.schema });
  const client = await connectClient(config);
  const kafka = createKafka(config.kafka, 'demo');
  const components: Component[] = [];
  try {
    const scenario = buildScenario(orderCount, seed);
    await seedStock(pool, scenario);
    const { providersUrl, metricsUrl, env } = await pickPipelineEndpoints(stack.state.env);

    const providers = startComponent('providers', 'harness/sandbox/main.ts', env, stack.paths.logs);
    components.push(providers);
    await waitForHttp(providers, `${providersUrl}/admin/faults`);
    components.push(startComponent('worker', 'src/worker/main.ts', env, stack.paths.logs));
    const bridge = startComponent('bridge', 'src/kafka-bridge/main.ts', env, stack.paths.logs);
    components.push(bridge);
    await waitForHttp(bridge, metricsUrl);

    const { counts, orders, cancelledOrderIds } = scenario.stream;
    const payoutCounts = scenario.payouts.counts;
    const topic = config.kafka.topics[0]!;
    // A share of the orders as Avro through the registry (docs/bridge.md, "Schema Registry").
    const { records, avro } = await withAvroOrders(scenario.records, {
      url: config.schemaRegistry?.url ?? '',
      topic,
      share: avroShare,
    });
    const producer = kafka.producer();
    await producer.connect();
    await publishPerPartition(kafka, producer, { topic, messages: records });
    await producer.disconnect();
    process.stderr.write(
      `published ${records.length} messages for ${counts.orders} orders, ${payoutCounts.payouts} payouts and ${scenario.carts.counts.carts} carts to ${topic}\n`,
    );

    const expected = scenario.expectedWorkflows;
    const progress = createProgress('workflows finished', expected);
    await waitFor(
      async () => {
        const dead = components.find((c) => c.child.exitCode !== null);
        if (dead)
          throw new Error(`${dead.name} exited with ${dead.child.exitCode}; see ${dead.logFile}`);
        const { total, running } = await countRunWorkflows(client, scenario.prefix);
        progress.update(total - running, running > 0 ? `(${running} running)` : '');
        return total >= expected && running === 0;
      },
      { timeoutMs: 15 * 60_000, intervalMs: 1000, what: 'every workflow of the run to finish' },
    );
    progress.finish();

    const steps = await readOrderSteps(client, scenario.orderPrefix);
    const claims = new Map(
      (await listOrderClaims(pool, { prefix: scenario.orderPrefix })).map((c) => [c.orderId, c]),
    );
    const cancelled = new Set(cancelledOrderIds);
    const facts = new Map<string, OrderFacts>();
    for (const [orderId, data] of orders) {
      const settled = claims.get(orderId)?.settled;
      facts.set(orderId, {
        data,
        step: steps.get(orderId),
        ...(settled !== undefined ? { settled } : {}),
        cancelled: cancelled.has(orderId),
        effects: await readOrderEffects(providersUrl, orderId, config.providers.adminToken),
      });
    }
    const payouts = await readPayoutFacts(scenario, {
      client,
      pool,
      providersUrl,
      adminToken: config.providers.adminToken,
    });
    const finalStock = new Map<string, number>();
    for (const sku of scenario.initialStock.keys()) finalStock.set(sku, await readStock(pool, sku));
    const carts = await readCartFacts(scenario, {
      client,
      pool,
      kafka,
      providersUrl,
      adminToken: config.providers.adminToken,
    });
    const cartCounts = scenario.carts.counts;
    const poisonProduced =
      counts.poison +
      counts.conflicts +
      payoutCounts.poison +
      payoutCounts.conflicts +
      cartCounts.poison +
      cartCounts.conflicts;
    const dlq = await readDlqByReason(
      kafka,
      dlqTopicOf(topic),
      scenario.prefix,
      poisonProduced,
      `${scenario.run}-dlq-reader`,
    );
    const violations = checkInvariants({
      orders: facts,
      payouts,
      carts,
      initialStock: scenario.initialStock,
      finalStock,
      poisonProduced,
      poisonDeadLettered: [...dlq.values()].reduce((s, n) => s + n, 0),
    });

    const byStep = new Map<string, number>();
    for (const f of facts.values())
      byStep.set(f.step ?? 'missing', (byStep.get(f.step ?? 'missing') ?? 0) + 1);
    const all = [...facts.values()];
    const sum = (pick: (f: OrderFacts) => number) => all.reduce((s, f) => s + pick(f), 0);
    const payoutsBy = new Map<string, number>();
    for (const p of payouts.values()) {
      const ending = p.settled ?? p.runs.find((r) => r.step !== 'duplicate')?.step ?? 'missing';
      payoutsBy.set(ending, (payoutsBy.get(ending) ?? 0) + 1);
    }
    const payoutEffects = [...payouts.values()].map((p) => p.effects);
    const cartsBy = endingsOf([...carts.values()]);
    const fmt = (m: Map<string, number>) =>
      [...m].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
    const duplicates = await scrapeCounter(metricsUrl, 'onceflow_bridge_duplicates_total');
    const query = visibility.startsWith(SEARCH_ATTRIBUTE.entityId, scenario.prefix);
    const trace = config.tracing.on ? await oneOrderTrace(client, query) : undefined;
    process.stdout.write(
      [
        '',
        `onceflow demo summary (run ${scenario.run}, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
        `  messages published   ${records.length} (${counts.duplicates + payoutCounts.duplicates + cartCounts.duplicates} redeliveries, ${counts.reemits + payoutCounts.reemits + cartCounts.reemits} re-emits, ${counts.conflicts + payoutCounts.conflicts + cartCounts.conflicts} conflicts, ${counts.poison + payoutCounts.poison + cartCounts.poison} poison)`,
        `  orders               ${counts.orders}, cancellations ${counts.cancels}; ${avro} messages as Avro through the schema registry`,
        `  payouts              ${payoutCounts.payouts}, cancellations ${payoutCounts.cancels}, version bumps ${payoutCounts.versionBumps}`,
        `  workflows            ${expected} finished; orders by outcome: ${fmt(byStep)}`,
        `                       payouts by outcome: ${fmt(payoutsBy)}`,
        `                       carts by outcome: ${fmt(cartsBy)}`,
        `  charges              ${sum((f) => f.effects.charges.length)}, refunds ${sum((f) => f.effects.refunds.length)}, emails ${sum((f) => f.effects.emails.length)}`,
        `  transfers            ${payoutEffects.reduce((s, e) => s + e.charges.length, 0)}, reversals ${payoutEffects.reduce((s, e) => s + e.refunds.length, 0)}, notices ${payoutEffects.reduce((s, e) => s + e.emails.length, 0)}`,
        `  carts                ${cartCounts.carts} of ${cartCounts.lines} lines (${cartCounts.declined} paid by the backup card or declined), cancellations ${cartCounts.cancels}`,
        `  DLQ by reason        ${fmt(dlq)}`,
        `  duplicates absorbed  ${duplicates}`,
        `  invariants           ${violations.length === 0 ? 'all hold' : `${violations.length} BROKEN`}`,
        ...violations.slice(0, 20).map((v) => `    ✗ ${v}`),
        `  this run in the UI   ${workflowListUrl(config.temporal.uiUrl, config.temporal.namespace, query)}`,
        ...(trace ? [`  one order's trace    ${trace.link ?? trace.traceId}`] : []),
        `  logs                 ${stack.paths.logs}/demo-*.log`,
        values.stop
          ? '  stack                stopped'
          : '  stack                still running; `npm run stack:stop` stops it',
        '',
        `Temporal Web UI: ${redactUrl(config.temporal.uiUrl)}`,
        '',
      ].join('\n'),
    );
    return violations.length === 0 ? 0 : 1;
  } finally {
    for (const c of components.reverse()) await stopComponent(c);
    await client.connection.close();
    await pool.end();
    if (values.stop) await stack.stop();
  }
}

/** How many carts ended each way: by their claim, else by their owner's run. */
function endingsOf(carts: CartFacts[]): Map<string, number> {
  const by = new Map<string, number>();
  for (const k of carts) {
    const ending = k.settled ?? k.runs.find((r) => r.step !== 'duplicate')?.step ?? 'missing';
    by.set(ending, (by.get(ending) ?? 0) + 1);
  }
  return by;
}

/** What the demo judges each payout of the run by: its runs, its claim, the provider's ledger. */
async function readPayoutFacts(
  scenario: ReturnType<typeof buildScenario>,
  deps: {
    client: Awaited<ReturnType<typeof connectClient>>;
    pool: ReturnType<typeof createPool>;
    providersUrl: string;
    adminToken?: string;
  },
): Promise<Map<string, PayoutFacts>> {
  const runs = await readEntityRuns(
    deps.client,
    scenario.payoutPrefix,
    payoutRequestedRoute.workflowType,
  );
  const claims = new Map(
    (await listClaims(deps.pool, PAYOUTS_DOMAIN, { prefix: scenario.payoutPrefix })).map((c) => [
      c.entityId,
      c,
    ]),
  );
  const cancelled = new Set(scenario.payouts.cancelledPayoutIds);
  const out = new Map<string, PayoutFacts>();
  for (const [payoutId, data] of scenario.payouts.payouts) {
    const settled = claims.get(payoutId)?.settled;
    out.set(payoutId, {
      data,
      runs: runs.get(payoutId) ?? [],
      ...(settled !== undefined ? { settled } : {}),
      cancelled: cancelled.has(payoutId),
      effects: await readOrderEffects(deps.providersUrl, payoutId, deps.adminToken),
    });
  }
  return out;
}

/**
 * The trace of one completed order of this run (ONCEFLOW_TRACING=on), as the bridge wrote it
 * into the workflow's details: its link when ONCEFLOW_TRACE_URL is set, else its ID.
 */
async function oneOrderTrace(
  client: Awaited<ReturnType<typeof connectClient>>,
  runQuery: string,
): Promise<{ traceId: string; link?: string } | undefined> {
  const query = visibility.allOf(runQuery, stepTerm(COMPLETED_STEP));
  for await (const info of client.workflow.list({ query, pageSize: 1 })) {
    const handle = client.workflow.getHandle(info.workflowId, info.runId);
    return traceOfDetails(await (await handle.describe()).staticDetails());
  }
  return undefined;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${DEMO_USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`demo failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
