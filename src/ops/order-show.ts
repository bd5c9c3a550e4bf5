/**
 * `orders show <orderId>`: everything an operator needs to decide about one order, in one
 * place: its run and the owner's claim, step and attention, operator record, the provider
 * ledger and the reservation, whether the run can go on on its code, keys and the Web UI link.
 */
import { DEFAULT_PRIORITY_KEY, describePriority } from '../temporal/run-priority';
import { adminHeaders } from '../reconcile/provider-ledger';
import { parseArgs } from 'node:util';
import type { OrderClaim } from '../domains/orders/workflows/order-claim';
import { findOrderClaim } from '../domains/orders/order-claim-store';
import { findReservation } from '../domains/orders/inventory/reservation-store';
import type { OrderEffects } from '../reconcile/facts';
import { workflowUrl } from '../temporal/ui-links';
import { shellCommand } from '../util/shell-quote';
import { stepKeys, type OrderResult } from '../domains/orders/workflows/order-definitions';
import {
  attentionLine,
  attentionOf,
  plainOfMarkdown,
  type AttentionView,
  type SeenAttention,
} from './order-attention';
import type { OpsContext } from './context';
import { buildLine, readRunProgress, stallLine } from './run-progress';
import { operatorActionLines, readOperatorActions } from './operator-history';
import { UNFINISHED_STATUSES, unfinishedLine } from './closed-run';
import { ORDERS_DOMAIN } from '../domains/orders/workflows/order-claim';
import type { SagaStatus } from '../workflows/saga-status';
import { queryStatus } from './order-status';
import { buildOrderQuery, findOrderRun, listExecutions } from './order-lookup';
import { runStepOf } from '../temporal/run-step';
import { formatFields, NotFoundError, positional, type CommandResult } from './output';

async function fetchProviderLedger(url: string, orderId: string, token?: string) {
  try {
    const res = await fetch(`${url}/admin/ledger?orderId=${encodeURIComponent(orderId)}`, {
      headers: adminHeaders(token),
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) return { error: `GET /admin/ledger: HTTP ${res.status}` };
    return (await res.json()) as OrderEffects;
  } catch (err) {
    // The sandbox is optional in production (real providers have their own dashboards).
    return { error: `providers at ${url} unreachable: ${(err as Error).message}` };
  }
}

/**
 * The commands `orders show` suggests for a parked order: the ID quoted for the shell and
 * after `--`, so an ID such as `--all` can only ever name that one order.
 */
export function nextCommandsOf(orderId: string, group = 'orders'): string {
  const verbs = ['retry', 'resolve', 'cancel'];
  return verbs.map((v) => shellCommand(['npx', 'onceflow', group, v, '--', orderId])).join(' · ');
}

/** `orders show <orderId>`: everything an operator needs to decide, in one place. */
export async function showOrder(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true });
  const orderId = positional(positionals, 'order ID');
  const client = await ctx.temporal();
  const claim = await findOrderClaim(ctx.db(), orderId);
  // The claim outlives the run: past Temporal's retention the order is still shown, from it.
  const run = await findOrderRun(client, ctx.db(), orderId).catch((err: unknown) => {
    if (err instanceof NotFoundError && claim) return undefined;
    throw err;
  });
  const handle = run && client.workflow.getHandle(run.workflowId, run.runId);
  const described = await handle?.describe();
  const running = described?.status.name === 'RUNNING';
  // A run that cannot go on on its code writes nothing: Temporal says it, not the run.
  const progress = described ? await readRunProgress(client, ctx.db(), described) : {};
  const stall = stallLine(progress);
  // Every other run for the order: re-sends that ended as duplicates or order conflicts.
  const otherRuns = await listExecutions(client, buildOrderQuery({ orderId }), 100).then((infos) =>
    infos
      .filter((i) => i.workflowId !== run?.workflowId)
      .map((i) => ({ workflowId: i.workflowId, status: i.status.name, step: runStepOf(i) })),
  );
  // A run that closed unfinished or cancelled answers the query too (a worker replays it):
  // what it did, and how it ended.
  const unfinished = [...UNFINISHED_STATUSES, 'CANCELLED'].includes(described?.status.name ?? '');
  const live = handle && (running || unfinished) ? await queryStatus(handle) : undefined;
  const result =
    handle && described?.status.name === 'COMPLETED'
      ? await (handle.result() as Promise<OrderResult>).catch(() => undefined)
      : undefined;
  const keys = stepKeys(orderId);
  const [providerLedger, reservation] = await Promise.all([
    fetchProviderLedger(ctx.config.providers.url, orderId, ctx.config.providers.adminToken),
    findReservation(ctx.db(), keys.reserve).catch((err: unknown) => ({
      error: (err as Error).message,
    })),
  ]);
  const status = live && !('error' in live) ? live : undefined;
  const operatorActions = handle
    ? await readOperatorActions(client, handle, status)
    : { error: 'the run is gone from Temporal' };
  const step = status?.step ?? (described && runStepOf(described));
  // The run found under the owner's workflow ID may be a later one: the same event read
  // again after Temporal forgot the owner (it ended duplicate).
  const runFirstId = described?.raw.workflowExecutionInfo?.firstRunId || undefined;
  const ownerRunGone =
    claim?.runId !== undefined && (run === undefined || runFirstId !== claim.runId);
  const seen: SeenAttention = described
    ? attentionOf(running, live, described.memo, described.raw.pendingActivities)
    : { source: 'none', detail: 'the order claim (the run is gone from Temporal)' };
  const { attention } = seen;
  const uiUrl = run
    ? workflowUrl(
        ctx.config.temporal.uiUrl,
        ctx.config.temporal.namespace,
        run.workflowId,
        run.runId,
      )
    : undefined;
  const json = {
    orderId,
    ...run,
    status: described?.status.name ?? 'GONE',
    step,
    outcome: status?.outcome ?? result?.outcome,
    statusSource: seen.source,
    attention,
    parked:
      status?.parked ??
      (attention?.state === 'parked'
        ? { step: attention.step, error: attention.cause, since: attention.since }
        : undefined),
    operatorActions,
    recoveryPoints: status?.recoveryPoints,
    queryError: live && 'error' in live ? live.error : undefined,
    result,
    build: progress.build,
    stalled: progress.stalled,
    // Temporal's own: the run's fairness key (its tenant) and priority key, as describe says.
    tenant: described?.priority?.fairnessKey || undefined,
    priority: described ? (described.priority?.priorityKey ?? DEFAULT_PRIORITY_KEY) : undefined,
    startTime: described?.startTime.toISOString(),
    closeTime: described?.closeTime?.toISOString(),
    owner: claim ?? null,
    ownerRunGone,
    otherRuns,
    keys,
    providerLedger,
    reservation: reservation ?? null,
    uiUrl,
  };
  const ledgerLine =
    'error' in providerLedger
      ? providerLedger.error
      : `${providerLedger.charges.length} charge(s), ${providerLedger.refunds.length} refund(s), ${providerLedger.emails.length} email(s)`;
  const reservationLine = !reservation
    ? 'none'
    : 'error' in reservation
      ? reservation.error
      : `${reservation.status} (${reservation.items.map((i) => `${i.quantity}×${i.sku}`).join(', ')})`;
  const human = formatFields([
    ['order', orderId],
    [
      'workflow',
      run
        ? `${run.workflowId} (run ${run.runId}, found by ${run.foundBy})${ownerRunGone ? "; not the owner's run" : ''}`
        : "gone from Temporal (its retention); the claim below is the order's record",
    ],
    ['owner', claim ? describeClaim(claim, ownerRunGone) : 'none yet (no run has reserved)'],
    [
      'other runs',
      otherRuns.map((o) => `${o.workflowId} ${o.step ?? o.status}`).join('; ') || 'none',
    ],
    ['status', json.status],
    ['priority', described ? describePriority(described.priority) : undefined],
    ['build', buildLine(progress.build)],
    ['step', step],
    ...(stall ? [['cannot go on', stall] as [string, string]] : []),
    ['outcome', json.outcome],
    ...(attention ? [attentionLine(attention)] : []),
    ['last error', attention?.cause],
    ...operatorActionLines(operatorActions),
    [
      'next',
      (run &&
        described &&
        unfinishedLine(
          { ...run, entityId: orderId, status: described.status.name },
          'orders',
          status as unknown as SagaStatus | undefined,
          claim ? { ...claim, domain: ORDERS_DOMAIN, entityId: orderId } : undefined,
        )) ||
        nextOf(orderId, step, attention),
    ],
    ['status from', seen.detail],
    ['provider ledger', ledgerLine],
    ['reservation', reservationLine],
    ...Object.entries(keys).map(([s, k]): [string, string] => [`key ${s}`, k]),
    ['Web UI', uiUrl],
  ]);
  return { json, human };
}

/** The owner line of `orders show`: the owning run and how the order settled. */
function describeClaim(claim: OrderClaim, runGone: boolean): string {
  const run =
    claim.runId !== undefined
      ? `run ${claim.runId}${runGone ? ', gone from Temporal' : ''}`
      : 'run not recorded (claimed before migration 0006)';
  const settled = claim.settled
    ? `settled ${claim.settled} at ${claim.settledAt}`
    : claim.cancelledAt
      ? 'cancelled before reserving'
      : 'not settled (its owner runs, or closed without settling)';
  const reopened = claim.reopenedAt ? `, reopened by a reset at ${claim.reopenedAt}` : '';
  return `${claim.workflowId} (${run}, claimed ${claim.claimedAt}, fingerprint ${claim.fingerprint}, ${settled}${reopened})`;
}

/** The `next:` line: the commands for a parked order, the workflow's word for a waiting one. */
function nextOf(orderId: string, step: string | undefined, attention?: AttentionView): string {
  if (step === 'needs_attention') return nextCommandsOf(orderId);
  if (attention?.state !== 'waiting') return '';
  if (attention.action) return plainOfMarkdown(attention.action);
  const retry = shellCommand(['npx', 'onceflow', 'orders', 'retry', '--', orderId]);
  return `none needed: ${attention.step} retries on its own with the same key; ${retry} tries now`;
}
