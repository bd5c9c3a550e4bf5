// The floor of `npm run bench`: what the same Temporal server allows for a workflow that does
// nothing and for one with three no-op activities, started as the bridge starts orders.
import { proxyActivities } from '@temporalio/workflow';
import type * as floorActivities from './floor-activities';

const noop = proxyActivities<typeof floorActivities>({ startToCloseTimeout: '15 seconds' });

/** A workflow that returns at once: one start, one workflow task. */
export async function floorEmpty(): Promise<void> {}

/** Three no-op activities in sequence, the shape of an order (reserve, charge, email). */
export async function floorThreeActivities(): Promise<void> {
  await noop.noop();
  await noop.noop();
  await noop.noop();
}
