// The order as Temporal's samples would write it: one workflow per event, three activities in
// sequence with the SDK's default retry policy. Workflow code.
import { proxyActivities } from '@temporalio/workflow';
import type { OrderPlacedData } from '../../../../src/domains/orders/order-events';
import type { PlainActivities } from './activities';

const { reserve, charge, email } = proxyActivities<PlainActivities>({
  startToCloseTimeout: '1 minute',
});

/** Reserve, charge, email: the same three effects as every other system of bench:peers. */
export async function plainOrder(order: OrderPlacedData): Promise<void> {
  await reserve(order);
  await charge(order);
  await email(order);
}
