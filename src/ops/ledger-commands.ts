import { createLedgerStore } from '../db/ledger-store';
import { parseArgsOrUsage } from '../util/usage-error';
import type { OpsContext } from './context';
import { formatFields, UsageError, type CommandResult } from './output';

/** What `ledger reap` reaps. */
export interface ReapArgs {
  /** Rows first seen more than this many days ago. */
  days: number;
  /** Schema of the ledger (processed_events). */
  schema: string;
}

/**
 * Reads `ledger reap`'s arguments; `defaults` are LEDGER_RETENTION_DAYS and DATABASE_SCHEMA.
 * Throws UsageError for anything malformed.
 */
export function parseReapArgs(argv: string[], defaults: ReapArgs): ReapArgs {
  const { values } = parseArgsOrUsage({
    args: argv,
    options: { 'older-than-days': { type: 'string' }, schema: { type: 'string' } },
    strict: true,
  });
  const raw = values['older-than-days'];
  const days = raw === undefined ? defaults.days : Number(raw);
  // Zero would empty the ledger and with it the dedup window beyond Temporal's retention.
  if (!Number.isFinite(days) || days <= 0) {
    throw new UsageError(`--older-than-days must be a positive number, got ${raw}`);
  }
  if (values.schema !== undefined && values.schema.trim() === '')
    throw new UsageError('--schema may not be empty');
  return { days, schema: values.schema ?? defaults.schema };
}

/**
 * `ledger reap [--older-than-days D] [--schema NAME]`: trims the dedup ledger (default
 * LEDGER_RETENTION_DAYS, in DATABASE_SCHEMA).
 */
export async function reapLedger(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { days, schema } = parseReapArgs(argv, {
    days: ctx.config.bridge.ledgerRetentionDays,
    schema: ctx.config.database.schema,
  });
  const deleted = await createLedgerStore(ctx.db(), { schema }).reapOlderThan(days);
  return {
    json: { olderThanDays: days, schema, deleted },
    human: formatFields([
      ['schema', schema],
      ['older than', `${days} day(s)`],
      ['deleted', deleted],
    ]),
  };
}
