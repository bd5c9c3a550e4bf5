import type { Client } from '@temporalio/client';
import type { Kafka, Message } from 'kafkajs';
import { countRunWorkflows } from '../demo/observe';
import { waitFor } from '../stack/wait';
import { retryStepSignal } from '../workflows/order-definitions';
import type { Sample } from './report';

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
 * the bridge must absorb anyway.
 */
export async function publishSpread(
  kafka: Kafka,
  topic: string,
  records: Message[],
  spreadMs: number,
  startedAt: number,
): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    const chunks = Math.max(1, Math.min(records.length, Math.ceil(spreadMs / 1000)));
    const size = Math.ceil(records.length / chunks);
    for (let c = 0; c * size < records.length; c++) {
      const due = startedAt + (c * spreadMs) / chunks;
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      const messages = records.slice(c * size, (c + 1) * size);
      await waitFor(() => producer.send({ topic, acks: -1, messages }).then(() => true), {
        timeoutMs: 180_000,
        intervalMs: 1000,
        what: `chunk ${c} published to ${topic}`,
      });
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * Waits until every workflow of the run has finished. An order parked in needs_attention
 * (a provider fault exhausted its budget) gets a retryStep signal, as an operator would once
 * the faults are off; at most once per workflow per `retryEveryMs`.
 */
export async function waitForQuiescence(
  client: Client,
  prefix: string,
  expected: number,
  timeoutMs: number,
  onProgress: (done: number, running: number, retried: number) => void,
  retryEveryMs = 15_000,
): Promise<number> {
  const lastRetry = new Map<string, number>();
  let retried = 0;
  await waitFor(
    async () => {
      const { total, running } = await countRunWorkflows(client, prefix);
      onProgress(total - running, running, retried);
      if (total >= expected && running === 0) return true;
      const query = `OrderId STARTS_WITH '${prefix}' AND ExecutionStatus = 'Running' AND OrderStep = 'needs_attention'`;
      for await (const info of client.workflow.list({ query })) {
        if (Date.now() - (lastRetry.get(info.workflowId) ?? 0) < retryEveryMs) continue;
        lastRetry.set(info.workflowId, Date.now());
        await client.workflow.getHandle(info.workflowId, info.runId).signal(retryStepSignal);
        retried++;
      }
      return false;
    },
    { timeoutMs, intervalMs: 1000, what: `all ${expected} workflows of ${prefix} to finish` },
  );
  return retried;
}

/**
 * Workflows of the run that found their order owned by another run, by how they ended
 * (OrderStep `duplicate`: same payload, nothing done; `order_conflict`: different payload).
 */
export async function countSecondRuns(
  client: Client,
  prefix: string,
): Promise<{ duplicate: number; orderConflict: number }> {
  const base = `OrderId STARTS_WITH '${prefix}'`;
  const [duplicate, orderConflict] = await Promise.all([
    client.workflow.count(`${base} AND OrderStep = 'duplicate'`),
    client.workflow.count(`${base} AND OrderStep = 'order_conflict'`),
  ]);
  return { duplicate: duplicate.count, orderConflict: orderConflict.count };
}
