// The floor of `npm run bench`: what the same Temporal server allows for a workflow that does
// nothing and for one with three no-op activities, started as the bridge starts orders; and the
// floor ladder's workflows (floor-ladder.ts), each the three-activity floor plus one of what an
// order's run adds to it. Workflow code.
import {
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { FloorActivities } from './floor-activities';

const options: ActivityOptions = { startToCloseTimeout: '15 seconds' };
const noop = proxyActivities<FloorActivities>(options);
const local = proxyLocalActivities<FloorActivities>(options);

/** A workflow that returns at once: one start, one workflow task. */
export async function floorEmpty(): Promise<void> {}

/** Three no-op activities in sequence: the three foreign calls of an order. */
export async function floorThreeActivities(): Promise<void> {
  await noop.noop();
  await noop.noop();
  await noop.noop();
}

/** What an order's summaries look like in length: the entity, the step and its key. */
const summaryOf = (step: string) =>
  `${step} 2500 EUR for order ${workflowInfo().workflowId} · order:${workflowInfo().workflowId}:${step}`;

/** The floor with a Web UI summary on each activity, as every step of a run has. */
export async function floorSummaries(): Promise<void> {
  for (const step of ['charge', 'email', 'announce'])
    await noop.noop.executeWithOptions({ ...options, summary: summaryOf(step) }, []);
}

/** The entity claim of the run, as a local activity, and its settlement at the end. */
function claimOf() {
  const { workflowId, firstExecutionRunId } = workflowInfo();
  return { workflowId, runId: firstExecutionRunId };
}

/** The floor between a claim and a settlement, each a local activity on onceflow's Postgres. */
export async function floorClaimSettle(): Promise<void> {
  await local.claim(claimOf());
  await floorThreeActivities();
  await local.settle(claimOf());
}

/** The floor whose third call publishes the order's event to Kafka, as the order's last step. */
export async function floorPublish(): Promise<void> {
  await noop.noop();
  await noop.noop();
  await noop.publish(workflowInfo().workflowId);
}

/** Every extra of the ladder at once: the shape of an order without its domain's own work. */
export async function floorAll(): Promise<void> {
  await local.claim(claimOf());
  await noop.noop.executeWithOptions({ ...options, summary: summaryOf('charge') }, []);
  await noop.noop.executeWithOptions({ ...options, summary: summaryOf('email') }, []);
  await noop.publish.executeWithOptions({ ...options, summary: summaryOf('announce') }, [
    workflowInfo().workflowId,
  ]);
  await local.settle(claimOf());
}
