import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '../config/load-or-exit';
import { createLedgerStore } from '../db/ledger-store';
import { createPool } from '../db/pool';

/** Ledger window when neither `--older-than-days` nor LEDGER_RETENTION_DAYS is given. */
export const DEFAULT_REAP_DAYS = 30;

const USAGE = 'usage: npm run ledger:reap -- [--older-than-days N] [--schema NAME]\n';

/** Reads the CLI arguments; throws a usage error for anything malformed. */
export function parseReapArgs(
  argv: string[],
  defaults: { days: number; schema: string } = { days: DEFAULT_REAP_DAYS, schema: 'public' },
): { days: number; schema: string } {
  const { values } = parseArgs({
    args: argv,
    options: {
      'older-than-days': { type: 'string' },
      schema: { type: 'string' },
    },
    strict: true,
  });
  const raw = values['older-than-days'];
  const days = raw === undefined ? defaults.days : Number(raw);
  // Zero would wipe the whole ledger and with it every dedup guarantee; refuse it.
  if (!Number.isFinite(days) || days <= 0) {
    throw new Error(`--older-than-days must be a positive number, got ${JSON.stringify(raw)}`);
  }
  return { days, schema: values.schema ?? defaults.schema };
}

/** `npm run ledger:reap`: deletes ledger rows older than the window and prints the count. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  let args: { days: number; schema: string };
  try {
    args = parseReapArgs(process.argv.slice(2), {
      days: config.bridge.ledgerRetentionDays,
      schema: config.database.schema,
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    process.exit(64);
  }
  const pool = createPool(config.database);
  try {
    const deleted = await createLedgerStore(pool, { schema: args.schema }).reapOlderThan(args.days);
    process.stdout.write(
      `${JSON.stringify({ msg: 'ledger reaped', olderThanDays: args.days, schema: args.schema, deleted })}\n`,
    );
  } finally {
    await pool.end();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`ledger reap failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
