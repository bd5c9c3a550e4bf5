import { ConfigError } from '../config';
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

/** What `ledger reap` defaults to and must respect. */
export interface ReapDefaults extends ReapArgs {
  /**
   * BRIDGE_DLQ_RETENTION_DAYS: how long a dead letter can wait to be replayed. A ledger row
   * reaped sooner would let a replayed entry start its workflow again (its identity no
   * longer known), so no window may be shorter.
   */
  dlqRetentionDays: number;
}

/**
 * Reads `ledger reap`'s arguments; `defaults` are LEDGER_RETENTION_DAYS, DATABASE_SCHEMA and
 * BRIDGE_DLQ_RETENTION_DAYS. Throws UsageError for anything malformed or a window shorter
 * than the DLQ retention given as --older-than-days, and ConfigError when LEDGER_RETENTION_DAYS
 * itself is shorter.
 */
export function parseReapArgs(argv: string[], defaults: ReapDefaults): ReapArgs {
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
  if (days < defaults.dlqRetentionDays) {
    const why =
      `shorter than BRIDGE_DLQ_RETENTION_DAYS (${defaults.dlqRetentionDays}): a DLQ entry ` +
      'replayed after its ledger row was reaped would start its workflow again';
    if (raw !== undefined) throw new UsageError(`--older-than-days ${days} is ${why}`);
    throw new ConfigError([{ setting: 'LEDGER_RETENTION_DAYS', message: `(${days}) is ${why}` }]);
  }
  if (values.schema !== undefined && values.schema.trim() === '')
    throw new UsageError('--schema may not be empty');
  return { days, schema: values.schema ?? defaults.schema };
}

/**
 * `ledger reap [--older-than-days D] [--schema NAME]`: trims the dedup ledger (default
 * LEDGER_RETENTION_DAYS, in DATABASE_SCHEMA), never to less than BRIDGE_DLQ_RETENTION_DAYS.
 */
export async function reapLedger(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { days, schema } = parseReapArgs(argv, {
    days: ctx.config.bridge.ledgerRetentionDays,
    schema: ctx.config.database.schema,
    dlqRetentionDays: ctx.config.bridge.dlqRetentionDays,
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
