import type { Client } from '@temporalio/client';
import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import { createLedgerStore } from '../../src/db/ledger-store';
import { listOrderClaims } from '../../src/domains/orders/order-claim-store';
import { SEARCH_ATTRIBUTE, visibility } from '../../src/temporal/search-attributes';
import { waitFor } from '../../src/util/wait';
import { stepKeys } from '../../src/domains/orders/workflows/order-definitions';
import { deleteClosedRuns, expireProviderKeys, resetGroupToEarliest } from './forget';
import type { Fleet } from './fleet';

/** What the time-passes fault needs: the run's processes, services and names. */
export interface TimePassesContext {
  fleet: Fleet;
  client: Client;
  kafka: Kafka;
  /** A pool on the run's own schema (ledger, claims). */
  pool: pg.Pool;
  schema: string;
  /** OrderId prefix of the run's orders. */
  prefix: string;
  topic: string;
  /** The bridge's consumer group. */
  groupId: string;
  providersUrl: string;
  providersToken?: string;
  log: (line: string) => void;
}

/** What forgetting and the re-read amounted to. */
export interface TimePassesReport {
  reapedLedgerRows: number;
  /** Closed runs deleted from Temporal, by workflow type. */
  deletedRuns: Record<string, number>;
  /** Orders whose claim had settled, whose provider keys were forgotten. */
  settledOrders: number;
  expiredKeys: number;
  /** Messages on the source topic when it was read again from the beginning. */
  rereadMessages: number;
}

/** Keys per POST /admin/keys/expire: well inside its body limit. */
const EXPIRE_BATCH = 5000;
/** How long one forgetting step may keep failing (a Kafka or Postgres restart nearby). */
const STEP_TIMEOUT_MS = 5 * 60_000;
/** How long the bridge may take to read the topic again. */
const REREAD_TIMEOUT_MS = 20 * 60_000;

/** A step that a service restarting nearby may fail: tried again until it answers. */
async function retried<T>(what: string, step: () => Promise<T>): Promise<T> {
  let result: T | undefined;
  await waitFor(
    async () => {
      result = await step();
      return true;
    },
    { timeoutMs: STEP_TIMEOUT_MS, intervalMs: 1000, what },
  );
  return result as T;
}

/**
 * Time passes for the run, in minutes instead of a month (docs/orders.md, "Which memory holds
 * what"): the bridge stops; Temporal's retention deletes every closed run of the run's orders
 * and cancellations, and the ledger reaper their rows (LEDGER_RETENTION_DAYS passed; a run
 * still in flight is younger than any retention, so its row stays); the providers forget the keys of every order whose claim has settled (a real
 * provider forgets a key a day after its request; an order still in flight retries its keys
 * within its transient window, an hour, so those stay); the bridge's consumer group goes back
 * to the earliest offsets and the bridge starts again. It returns once the bridge has handled
 * the whole topic as it stood. Only the order claims remember: no order may act again.
 */
export async function letTimePass(ctx: TimePassesContext): Promise<TimePassesReport> {
  await ctx.fleet.stop('bridge');
  let report: Omit<TimePassesReport, 'rereadMessages'>;
  let end: Map<number, number>;
  try {
    const deletedRuns: Record<string, number> = {};
    const deletedIds = new Set<string>();
    await retried('closed runs deleted', () =>
      deleteClosedRuns(
        ctx.client,
        visibility.startsWith(SEARCH_ATTRIBUTE.entityId, ctx.prefix),
        deletedRuns,
        undefined,
        deletedIds,
      ),
    );
    // The ledger forgets what retention forgot: the rows of the deleted runs. An order still in
    // flight keeps its row, as it would under a real reaper (LEDGER_RETENTION_DAYS outlasts any
    // order), so a cancellation before its reservation still finds it there.
    const reapedLedgerRows = await retried('the ledger reaped', () =>
      createLedgerStore(ctx.pool, { schema: ctx.schema }).reapWorkflows([...deletedIds]),
    );
    const settled = (
      await retried('order claims read', () =>
        listOrderClaims(ctx.pool, { schema: ctx.schema, prefix: ctx.prefix }),
      )
    ).filter((c) => c.settled !== undefined);
    const keys = settled.flatMap((c) => Object.values(stepKeys(c.orderId)));
    let expiredKeys = 0;
    for (let i = 0; i < keys.length; i += EXPIRE_BATCH) {
      const batch = keys.slice(i, i + EXPIRE_BATCH);
      expiredKeys += await retried('provider keys expired', () =>
        expireProviderKeys(ctx.providersUrl, ctx.providersToken, { keys: batch }),
      );
    }
    await retried('the consumer group reset', () =>
      resetGroupToEarliest(ctx.kafka, ctx.groupId, ctx.topic),
    );
    end = await retried('the end offsets read', () => highWatermarks(ctx.kafka, ctx.topic));
    report = { reapedLedgerRows, deletedRuns, settledOrders: settled.length, expiredKeys };
    ctx.log(
      `time passes: ${reapedLedgerRows} ledger rows reaped, ${Object.values(deletedRuns).reduce((a, b) => a + b, 0)} closed runs deleted, ${expiredKeys} keys of ${settled.length} settled orders expired; reading ${ctx.topic} again`,
    );
  } finally {
    await ctx.fleet.start('bridge');
  }
  await waitFor(
    async () => {
      const committed = await committedOffsets(ctx.kafka, ctx.groupId, ctx.topic);
      return [...end].every(([p, high]) => (committed.get(p) ?? -1) >= high);
    },
    { timeoutMs: REREAD_TIMEOUT_MS, intervalMs: 1000, what: `${ctx.topic} read again to its end` },
  );
  const rereadMessages = [...end.values()].reduce((a, b) => a + b, 0);
  return { ...report, rereadMessages };
}

async function highWatermarks(kafka: Kafka, topic: string): Promise<Map<number, number>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((p) => [p.partition, Number(p.high)]));
  } finally {
    await admin.disconnect();
  }
}

async function committedOffsets(
  kafka: Kafka,
  groupId: string,
  topic: string,
): Promise<Map<number, number>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return new Map((entry?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  } finally {
    await admin.disconnect();
  }
}
