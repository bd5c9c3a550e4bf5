// What time does to every memory of an order but its claim (docs/orders.md, "Which memory
// holds what"): Temporal's retention deletes closed runs, a provider forgets idempotency keys,
// a consumer group starts over from the beginning. The ledger's own reaper is
// LedgerStore.reapOlderThan. Used by the chaos run's time-passes fault and by the tests that
// check the claim against the same expiries.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Admin, Kafka } from 'kafkajs';
import { adminHeaders } from '../../src/reconcile/provider-ledger';
import type { ExpireKeysInput } from '../sandbox/key-store';
import { forEachLimited } from '../../src/util/run-limited';
import { waitFor } from '../../src/util/wait';

/** gRPC status NOT_FOUND. */
const GRPC_NOT_FOUND = 5;

/** A step of forgetting failed in a way a retry cannot fix; names what and why. */
export class ForgetError extends Error {
  override readonly name = 'ForgetError';
}

/**
 * Deletes one run from Temporal, as its namespace retention would (history and visibility),
 * and waits until the server no longer knows it. `runId` defaults to the current run.
 * Returns the deleted run's ID.
 */
export async function deleteRun(
  client: Client,
  workflowId: string,
  runId?: string,
  timeoutMs = 60_000,
): Promise<string> {
  const described = await client.workflow.getHandle(workflowId, runId).describe();
  await client.workflowService.deleteWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId, runId: described.runId },
  });
  await waitFor(
    () =>
      client.workflow
        .getHandle(workflowId, described.runId)
        .describe()
        .then(
          () => false,
          (err: unknown) => {
            if (err instanceof WorkflowNotFoundError) return true;
            throw err;
          },
        ),
    { timeoutMs, intervalMs: 200, what: `run ${described.runId} of ${workflowId} deleted` },
  );
  return described.runId;
}

/**
 * Deletes every closed run a visibility query lists (a few at once), as retention would;
 * running ones are left alone. Counts the deleted runs by workflow type into `counts` (kept
 * across a retried call) and returns it once the server knows none of them any more: the
 * Temporal server deletes asynchronously (the dev server all but at once), and a run still
 * being deleted when its event is read again would reject the new start as a duplicate,
 * then vanish, where retention leaves no run at all.
 */
export async function deleteClosedRuns(
  client: Client,
  query: string,
  counts: Record<string, number> = {},
  concurrency = 8,
  /** Collects the workflow IDs of the deleted runs (kept across a retried call, as `counts`). */
  deletedIds: Set<string> = new Set(),
): Promise<Record<string, number>> {
  const closed: Array<{ workflowId: string; runId: string; type: string }> = [];
  for await (const info of client.workflow.list({ query })) {
    if (info.status.name !== 'RUNNING')
      closed.push({ workflowId: info.workflowId, runId: info.runId, type: info.type });
  }
  await forEachLimited(closed, concurrency, async ({ workflowId, runId, type }) => {
    await client.workflowService
      .deleteWorkflowExecution({
        namespace: client.options.namespace,
        workflowExecution: { workflowId, runId },
      })
      .then(
        () => {
          counts[type] = (counts[type] ?? 0) + 1;
          deletedIds.add(workflowId);
        },
        (err: unknown) => {
          // Deleted already (a second pass), or gone by retention meanwhile: the same end.
          if ((err as { code?: number }).code !== GRPC_NOT_FOUND) throw err;
          deletedIds.add(workflowId);
        },
      );
  });
  let left = closed;
  await waitFor(
    async () => {
      const known: typeof closed = [];
      await forEachLimited(left, concurrency, async (run) => {
        const gone = await client.workflow
          .getHandle(run.workflowId, run.runId)
          .describe()
          .then(
            () => false,
            (err: unknown) => {
              if (err instanceof WorkflowNotFoundError) return true;
              throw err;
            },
          );
        if (!gone) known.push(run);
      });
      left = known;
      return left.length === 0;
    },
    { timeoutMs: 5 * 60_000, intervalMs: 500, what: `${closed.length} deleted runs gone` },
  );
  return counts;
}

/** Tells the sandbox providers to forget keys now (POST /admin/keys/expire); how many went. */
export async function expireProviderKeys(
  providersUrl: string,
  adminToken: string | undefined,
  input: ExpireKeysInput,
): Promise<number> {
  const res = await fetch(`${providersUrl}/admin/keys/expire`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...adminHeaders(adminToken) },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok)
    throw new ForgetError(`POST /admin/keys/expire: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { expired: number }).expired;
}

/**
 * Moves a consumer group back to the beginning of a topic, as an operator's `--reset-offsets
 * --to-earliest` does, and returns once the group's committed offsets say so. Kafka only
 * allows it while the group has no members, so the caller stops its consumers first; a member
 * still leaving is waited for. KafkaJS's resetOffsets commits through a consumer of the group
 * and resolves on its first fetch whether or not that commit was taken: with the offsets topic
 * short of in-sync replicas, or its coordinator moving, the group kept its old offsets, and the
 * bridge resumed there instead of reading the topic again. So the committed offsets are read
 * back, and the reset is made again until every partition is at the earliest (-2, which the
 * consumer resolves to the first offset, or an offset at or below the low watermark).
 */
export async function resetGroupToEarliest(
  kafka: Kafka,
  groupId: string,
  topic: string,
  timeoutMs = 120_000,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await waitFor(
      async () => {
        // "The consumer group must have no running instances": not yet left (thrown: retried).
        await admin.resetOffsets({ groupId, topic, earliest: true });
        return atEarliest(admin, groupId, topic);
      },
      {
        timeoutMs,
        intervalMs: 500,
        what: `consumer group ${groupId} reset to the earliest offsets of ${topic}`,
      },
    );
  } finally {
    await admin.disconnect();
  }
}

/** Whether every partition's committed offset of `groupId` is at the topic's beginning. */
async function atEarliest(admin: Admin, groupId: string, topic: string): Promise<boolean> {
  const low = new Map(
    (await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.low)]),
  );
  const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const committed = new Map((entry?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
  return [...low].every(([partition, first]) => {
    const offset = committed.get(partition);
    return offset === -2n || (offset !== undefined && offset >= 0n && offset <= first);
  });
}
