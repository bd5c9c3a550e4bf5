// How an order's run is named to an operator (the engine's details, src/workflows/details.ts,
// in the order's words). Pure (used by workflow code and the ops CLI).
import {
  currentDetailsOf as sagaDetailsOf,
  parkedActionOf as sagaParkedActionOf,
  waitingActionOf as sagaWaitingActionOf,
  type SagaDisplay,
} from '../../../workflows/details';
import type { SagaStatus } from '../../../workflows/saga-status';
import type { OrderStatus, StepName } from './order-definitions';

/** Who an order step talks to, as an operator would name it. */
export const ORDER_COUNTERPARTS: Readonly<Record<StepName, string>> = {
  reserve: 'the inventory database',
  release: 'the inventory database',
  charge: 'the payment provider',
  refund: 'the payment provider',
  email: 'the mail provider',
  announce: 'Kafka (OrderFulfilled)',
};

/** The order domain's words for the Web UI and the copy-paste commands. */
export const ORDER_DISPLAY: SagaDisplay = {
  entity: 'order',
  cli: 'orders',
  cancelSignal: 'cancelOrder',
  counterpart: (step) => ORDER_COUNTERPARTS[step as StepName] ?? `the ${step} call`,
};

const asSaga = (status: OrderStatus): SagaStatus => ({ ...status, entityId: status.orderId });

/** What an operator may do about a parked step (memo `attention.action`, current details). */
export function parkedActionOf(status: OrderStatus, step: StepName): string {
  return sagaParkedActionOf(ORDER_DISPLAY, asSaga(status), step);
}

/** What an operator may do about a waiting step: nothing, unless they know better. */
export function waitingActionOf(status: OrderStatus, step: StepName, deadline: string): string {
  return sagaWaitingActionOf(ORDER_DISPLAY, asSaga(status), step, deadline);
}

/** Markdown for setCurrentDetails: the step, the last error and, when parked, what to do. */
export function currentDetailsOf(status: OrderStatus): string {
  return sagaDetailsOf(ORDER_DISPLAY, asSaga(status));
}
