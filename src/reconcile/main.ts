import { loadConfigOrExit } from '../config/load-or-exit';
import { createPool } from '../db/pool';
import { createKafka } from '../kafka/kafka-client';
import { buildRouteTable } from '../domains';
import { connectClient } from '../temporal/connection';
import { UsageError } from '../util/usage-error';
import { parseReconcileArgs, RECONCILE_USAGE, type ReconcileArgs } from './args';
import { formatReportJson, formatReportTable } from './format';
import { runReconcile } from './reconcile';
import { createRegistryDecoder } from '../kafka/registry-decoder';
import { inert } from '../util/inert-text';

/** Exit codes of `npm run reconcile`; scripts and the chaos run branch on them. */
export const RECONCILE_EXIT = {
  clean: 0,
  discrepancies: 1,
  usage: 2,
  /** A source could not be read: the run proves nothing either way. */
  incomplete: 3,
  config: 78,
} as const;

/**
 * `npm run reconcile` (argv without node and script): reads the events back from the topic, the ledger, Temporal, the
 * providers' ledgers, inventory and the DLQ, and lists every discrepancy by class. Exit 0
 * only when clean. Read-only, so it is safe against production at any time; running orders
 * are judged only by --stuck-after until they finish. Returns the exit code (RECONCILE_EXIT);
 * exported so a multi-command CLI can dispatch to it.
 */
export async function runReconcileCli(argv: string[]): Promise<number> {
  let args: ReconcileArgs;
  try {
    args = parseReconcileArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n${RECONCILE_USAGE}`);
    return RECONCILE_EXIT.usage;
  }
  const config = loadConfigOrExit();
  let routes;
  try {
    routes = buildRouteTable(config.bridge.extraRoutes);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return RECONCILE_EXIT.config;
  }
  const topics = args.topics.length > 0 ? args.topics : config.kafka.topics;
  const schema = args.schema ?? config.database.schema;
  const providersUrl = args.providersUrl ?? config.providers.url;
  const pool = createPool(config.database, { schema });
  const kafka = createKafka(config.kafka, 'reconcile');
  let client;
  try {
    client = await connectClient(config);
    const report = await runReconcile(
      { kafka, client, pool },
      {
        topics,
        prefix: args.prefix,
        schema,
        providersUrl,
        providersToken: config.providers.adminToken,
        routes,
        translateOptions: { maxBytes: config.bridge.maxMessageBytes },
        stuckAfterMs: args.stuckAfterMs,
        ...(config.schemaRegistry
          ? { registry: createRegistryDecoder(config.schemaRegistry) }
          : {}),
      },
    );
    const scope = { topics, prefix: args.prefix, schema, stuckAfterMs: args.stuckAfterMs };
    process.stdout.write(
      args.json
        ? formatReportJson(report, scope)
        : formatReportTable(
            report,
            `topics ${topics.join(', ')}${args.prefix ? `, prefix ${args.prefix}` : ''}, schema ${schema}`,
          ),
    );
    return report.clean ? RECONCILE_EXIT.clean : RECONCILE_EXIT.discrepancies;
  } catch (err) {
    // The cause may quote what a source held (a topic's record, a row): escaped like the table.
    process.stderr.write(`reconcile could not finish: ${inert((err as Error).message)}\n`);
    return RECONCILE_EXIT.incomplete;
  } finally {
    await client?.connection.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
  }
}

if (require.main === module) {
  runReconcileCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`reconcile failed: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(RECONCILE_EXIT.incomplete);
    },
  );
}
