import type { Client } from '@temporalio/client';
import type { Kafka } from 'kafkajs';
import { readDlqHeaders } from '../../src/events/dlq-message';
import {
  SEARCH_ATTRIBUTE,
  SYSTEM_ATTRIBUTE,
  visibility,
} from '../../src/temporal/search-attributes';
import { runStepOf } from '../../src/temporal/run-step';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';
import { waitFor } from '../../src/util/wait';
import type { OrderEffects } from './invariants';
import { adminHeaders } from '../../src/reconcile/provider-ledger';

/** Final OrderStep of every orderFulfillment workflow whose OrderId starts with `prefix`. */
export async function readOrderSteps(client: Client, prefix: string): Promise<Map<string, string>> {
  const steps = new Map<string, string>();
  const query = visibility.allOf(
    visibility.equals(SYSTEM_ATTRIBUTE.workflowType, WORKFLOW_TYPE.orderFulfillment),
    visibility.startsWith(SEARCH_ATTRIBUTE.entityId, prefix),
  );
  for await (const info of client.workflow.list({ query })) {
    const orderId = info.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId);
    const step = runStepOf(info);
    if (orderId) steps.set(orderId, step ?? 'unknown');
  }
  return steps;
}

/**
 * How every closed run of one workflow type whose EntityId starts with `prefix` ended (its
 * step), by entity: each payout's runs, the owner's and any second one's.
 */
export async function readEntityRuns(
  client: Client,
  prefix: string,
  workflowType: string,
): Promise<Map<string, Array<{ workflowId: string; step?: string }>>> {
  const runs = new Map<string, Array<{ workflowId: string; step?: string }>>();
  const query = visibility.allOf(
    visibility.equals(SYSTEM_ATTRIBUTE.workflowType, workflowType),
    visibility.startsWith(SEARCH_ATTRIBUTE.entityId, prefix),
  );
  for await (const info of client.workflow.list({ query })) {
    const entityId = info.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId);
    if (!entityId) continue;
    const step = runStepOf(info);
    const list = runs.get(entityId) ?? [];
    list.push({ workflowId: info.workflowId, ...(step !== undefined ? { step } : {}) });
    runs.set(entityId, list);
  }
  return runs;
}

/** Workflows of the run (orders, payouts and cancellations), and how many still run. */
export async function countRunWorkflows(
  client: Client,
  prefix: string,
): Promise<{ total: number; running: number }> {
  const base = visibility.startsWith(SEARCH_ATTRIBUTE.entityId, prefix);
  const [total, running] = await Promise.all([
    client.workflow.count(base),
    client.workflow.count(
      visibility.allOf(base, visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Running')),
    ),
  ]);
  return { total: total.count, running: running.count };
}

/** The sandbox providers' ledger rows of one order (admin API). */
export async function readOrderEffects(
  providersUrl: string,
  orderId: string,
  adminToken?: string,
): Promise<OrderEffects> {
  const res = await fetch(`${providersUrl}/admin/ledger?orderId=${encodeURIComponent(orderId)}`, {
    headers: adminHeaders(adminToken),
  });
  if (!res.ok) throw new Error(`admin ledger for ${orderId}: HTTP ${res.status}`);
  return (await res.json()) as OrderEffects;
}

/** DLQ messages of this run (keys start with the run's prefix), by reason. */
export async function readDlqByReason(
  kafka: Kafka,
  dlqTopic: string,
  prefix: string,
  expected: number,
  groupId: string,
): Promise<Map<string, number>> {
  const byReason = new Map<string, number>();
  let seen = 0;
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: dlqTopic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (!message.key?.toString().startsWith(prefix)) return;
        const reason = readDlqHeaders(message.headers).reason ?? 'none';
        byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
        seen++;
      },
    });
    await waitFor(() => seen >= expected, {
      timeoutMs: 60_000,
      what: `${expected} DLQ messages of this run`,
    }).catch(() => undefined);
    return byReason;
  } finally {
    await consumer.disconnect();
  }
}

/** Sum of a Prometheus counter from a metrics endpoint, optionally filtered by a label text. */
export async function scrapeCounter(metricsUrl: string, name: string, label = ''): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .filter((l) => l.includes(label))
    .reduce((s, l) => s + Number(l.split(' ').at(-1)), 0);
}
