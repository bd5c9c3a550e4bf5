import type { Client } from '@temporalio/client';
import type { Kafka, Message } from 'kafkajs';
import { countRunWorkflows } from '../pipeline/observe';
import { fetchPartitionCount, sendPerPartition } from '../../src/kafka/send-per-partition';
import { waitFor } from '../../src/util/wait';
import { TRANSIENT_FAILURE_TYPES } from '../../src/activities/transient-failure';
import {
  ATTENTION_MEMO,
  retryStepSignal,
  WAITED_MEMO,
  type Attention,
  type WaitedMemo,
} from '../../src/domains/orders/workflows/order-definitions';
import type { Sample } from './report';
import {
  SEARCH_ATTRIBUTE,
  SYSTEM_ATTRIBUTE,
  visibility,
} from '../../src/temporal/search-attributes';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';

/** Samples visibility counts of the run every second until stopped (a timer, not a wait). */
export function startSampler(client: Client, prefix: string, startedAt: number) {
  const samples: Sample[] = [];
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    countRunWorkflows(client, prefix)
      .then(({ total, running }) =>
        samples.push({
          tMs: Date.now() - startedAt,
          completed: total - running,
          inFlight: running,
        }),
      )
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, 1000);
  return { samples, stop: () => clearInterval(timer) };
}

/**
 * Publishes the stream in chunks spread over `spreadMs`, so faults land while events flow. A
 * chunk that fails (broker restarting) is sent again: a resend is one more redelivery, which
 * the bridge must absorb anyway. One produce call per partition (src/kafka/send-per-partition.ts):
 * a call across partitions loses the messages of a partition whose leader moved mid-call.
 */
export async function publishSpread(
  kafka: Kafka,
  topic: string,
  records: Message[],
  spreadMs: number,
  startedAt: number,
  /** Told of each chunk once Kafka has it, with the time it was sent (the soak's latencies). */
  onChunk?: (messages: Message[], sentAt: number) => void,
): Promise<void> {
  // Read once, before the faults begin.
  const partitions = await fetchPartitionCount(kafka, topic);
  const producer = kafka.producer();
  await producer.connect();
  try {
    const chunks = Math.max(1, Math.min(records.length, Math.ceil(spreadMs / 1000)));
    const size = Math.ceil(records.length / chunks);
    for (let c = 0; c * size < records.length; c++) {
      const due = startedAt + (c * spreadMs) / chunks;
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      const messages = records.slice(c * size, (c + 1) * size);
      const sentAt = Date.now();
      await waitFor(
        () => sendPerPartition(producer, { topic, messages, partitions }).then(() => true),
        { timeoutMs: 180_000, intervalMs: 1000, what: `chunk ${c} published to ${topic}` },
      );
      onChunk?.(messages, sentAt);
    }
  } finally {
    await producer.disconnect();
  }
}

/** A parked order's cause is transient: it parked on an outage it should have waited out. */
function parkedOnTransient(memo: Record<string, unknown> | undefined): boolean {
  const attention = memo?.[ATTENTION_MEMO] as Attention | undefined;
  if (attention?.state !== 'parked') return false;
  return TRANSIENT_FAILURE_TYPES.some((t) => attention.cause.startsWith(`${t}:`));
}

/**
 * Waits until every workflow of the run has finished. An order parked in needs_attention
 * (a fault exhausted a budget) gets a retryStep signal, as an operator would once the faults
 * are off; at most once per workflow per `retryEveryMs`. Orders parked on a transient provider
 * cause are counted apart (`parkedOnTransient`): every outage of the run is shorter than the
 * transient window, so each such order is a violation.
 */
export async function waitForQuiescence(
  client: Client,
  prefix: string,
  expected: number,
  timeoutMs: number,
  onProgress: (done: number, running: number, retried: number) => void,
  retryEveryMs = 15_000,
  /**
   * Whether the bridge has handled the whole topic (its group's committed offsets at the end).
   * Then a run that stays short of `expected` with nothing running for SETTLED_MS is over too:
   * an event dead-lettered on the re-read (a version made stale by a newer one the ledger
   * kept) has no workflow, and reconcile, not this wait, judges what is missing.
   */
  caughtUp?: () => Promise<boolean>,
): Promise<{ retried: number; parkedOnTransient: number }> {
  const lastRetry = new Map<string, number>();
  const onTransient = new Set<string>();
  let retried = 0;
  let idle: { total: number; since: number } | undefined;
  await waitFor(
    async () => {
      const { total, running } = await countRunWorkflows(client, prefix);
      onProgress(total - running, running, retried);
      if (total >= expected && running === 0) return true;
      if (running > 0 || idle?.total !== total) idle = { total, since: Date.now() };
      else if (Date.now() - idle.since >= SETTLED_MS && caughtUp && (await caughtUp())) return true;
      const query = visibility.allOf(
        visibility.startsWith(SEARCH_ATTRIBUTE.entityId, prefix),
        visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Running'),
        visibility.equals(SEARCH_ATTRIBUTE.step, 'needs_attention'),
      );
      for await (const info of client.workflow.list({ query })) {
        if (Date.now() - (lastRetry.get(info.workflowId) ?? 0) < retryEveryMs) continue;
        lastRetry.set(info.workflowId, Date.now());
        if (parkedOnTransient(info.memo)) onTransient.add(info.workflowId);
        await client.workflow.getHandle(info.workflowId, info.runId).signal(retryStepSignal, {
          by: 'chaos',
          reason: 'faults are off',
        });
        retried++;
      }
      return false;
    },
    { timeoutMs, intervalMs: 1000, what: `all ${expected} workflows of ${prefix} to finish` },
  );
  return { retried, parkedOnTransient: onTransient.size };
}

/** How long nothing may run nor start before a run short of its expected count is over. */
const SETTLED_MS = 30_000;

/** Whether `groupId` has committed every partition of `topic` up to its current end. */
export async function groupCaughtUp(
  kafka: Kafka,
  groupId: string,
  topic: string,
): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const committed = new Map(
      (entry?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]),
    );
    return (await admin.fetchTopicOffsets(topic)).every(
      (p) => (committed.get(p.partition) ?? -1n) >= BigInt(p.high),
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * How many orders of the run waited on a transient cause (memo `waited`, written when a wait
 * ends), the longest single wait and the sum of all waits.
 */
export async function countTransientWaits(
  client: Client,
  prefix: string,
): Promise<{ orders: number; maxMs: number; totalMs: number }> {
  const waits = { orders: 0, maxMs: 0, totalMs: 0 };
  const query = visibility.startsWith(SEARCH_ATTRIBUTE.entityId, prefix);
  for await (const info of client.workflow.list({ query })) {
    const waited = info.memo?.[WAITED_MEMO] as WaitedMemo | undefined;
    if (!waited || waited.totalMs <= 0) continue;
    waits.orders++;
    waits.maxMs = Math.max(waits.maxMs, waited.maxMs);
    waits.totalMs += waited.totalMs;
  }
  return waits;
}

/**
 * Runs of the run that found their entity owned by another run, by how they ended (step
 * `duplicate`: same payload, nothing done; `<entity>_conflict`: different payload). A resend,
 * a version bump, or the same event read again after its first run was deleted. Default: the
 * order runs; `runs` names another domain's workflow type and conflict step.
 */
export async function countSecondRuns(
  client: Client,
  prefix: string,
  runs: { workflowType: string; conflictStep: string } = {
    workflowType: WORKFLOW_TYPE.orderFulfillment,
    conflictStep: 'order_conflict',
  },
): Promise<{ duplicate: number; orderConflict: number }> {
  const { workflowType, conflictStep } = runs;
  const ofStep = (step: string) =>
    visibility.allOf(
      visibility.equals(SYSTEM_ATTRIBUTE.workflowType, workflowType),
      visibility.startsWith(SEARCH_ATTRIBUTE.entityId, prefix),
      visibility.equals(SEARCH_ATTRIBUTE.step, step),
    );
  const [duplicate, orderConflict] = await Promise.all([
    client.workflow.count(ofStep('duplicate')),
    client.workflow.count(ofStep(conflictStep)),
  ]);
  return { duplicate: duplicate.count, orderConflict: orderConflict.count };
}
