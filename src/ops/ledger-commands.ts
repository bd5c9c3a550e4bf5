import { parseArgs } from 'node:util';
import { createLedgerStore } from '../db/ledger-store';
import type { OpsContext } from './context';
import { formatFields, UsageError, type CommandResult } from './output';

/** `ledger reap [--older-than-days D]`: trims the dedup ledger (default LEDGER_RETENTION_DAYS). */
export async function reapLedger(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values } = parseArgs({
    args: argv,
    options: { 'older-than-days': { type: 'string' } },
    strict: true,
  });
  const raw = values['older-than-days'];
  const days = raw === undefined ? ctx.config.bridge.ledgerRetentionDays : Number(raw);
  // Zero would empty the ledger and with it the dedup window beyond Temporal's retention.
  if (!Number.isFinite(days) || days <= 0) {
    throw new UsageError(`--older-than-days must be a positive number, got ${raw}`);
  }
  const schema = ctx.config.database.schema;
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
