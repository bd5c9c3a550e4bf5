// The second runs of a chaos run's entities: runs that found their order, payout or cart owned
// by another run (a resend, a version bump, an event read again after its first run was
// deleted) and must have ended `duplicate` (or conflict) without acting.
import type { Client } from '@temporalio/client';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';
import { payoutRequestedRoute } from '../../src/domains/payouts/routes';
import { cartCheckedOutRoute } from '../../src/domains/carts/routes';
import type { DemoScenario } from '../pipeline/scenario';
import { countSecondRuns } from './observe';

export const PAYOUT_WORKFLOW = payoutRequestedRoute.workflowType;
export const CART_WORKFLOW = cartCheckedOutRoute.workflowType;

type Counted = Awaited<ReturnType<typeof countSecondRuns>>;

/** How the second runs of each domain ended. */
export interface SecondRuns {
  orders: Counted;
  payouts: Counted;
  carts: Counted;
}

export async function readSecondRuns(client: Client, scenario: DemoScenario): Promise<SecondRuns> {
  return {
    orders: await countSecondRuns(client, scenario.orderPrefix),
    payouts: await countSecondRuns(client, scenario.payoutPrefix, {
      workflowType: PAYOUT_WORKFLOW,
      conflictStep: 'payout_conflict',
    }),
    carts: await countSecondRuns(client, scenario.cartPrefix, {
      workflowType: CART_WORKFLOW,
      conflictStep: 'cart_conflict',
    }),
  };
}

/**
 * The report's rows and the printed lines of the second runs, each beside what caused them
 * (`deletedRuns`: the closed runs of a workflow type that time passing deleted).
 */
export function describeSecondRuns(
  s: SecondRuns,
  scenario: DemoScenario,
  deletedRuns: (workflowType: string) => number,
): { rows: [string, number][]; lines: string[] } {
  const c = scenario.stream.counts;
  const orders = deletedRuns(WORKFLOW_TYPE.orderFulfillment);
  const payouts = deletedRuns(PAYOUT_WORKFLOW);
  const carts = deletedRuns(CART_WORKFLOW);
  const bumps = {
    payouts: scenario.payouts.counts.versionBumps,
    carts: scenario.carts.counts.versionBumps,
  };
  return {
    rows: [
      [
        `ended duplicate (of ${c.resends} resends + ${c.versionBumps} version bumps + ${orders} runs deleted, read again)`,
        s.orders.duplicate,
      ],
      ['ended order-conflict', s.orders.orderConflict],
      [
        `payout runs ended duplicate (of ${bumps.payouts} version bumps + ${payouts} runs deleted, read again)`,
        s.payouts.duplicate,
      ],
      ['payout runs ended payout-conflict', s.payouts.orderConflict],
      [
        `cart runs ended duplicate (of ${bumps.carts} version bumps + ${carts} runs deleted, read again)`,
        s.carts.duplicate,
      ],
      ['cart runs ended cart-conflict', s.carts.orderConflict],
    ],
    lines: [
      `second runs of an order: ${s.orders.duplicate} ended duplicate (${c.resends + c.versionBumps} resent, ${orders} deleted and read again), ${s.orders.orderConflict} ended order-conflict`,
      `second runs of a payout: ${s.payouts.duplicate} ended duplicate (${bumps.payouts} version bumps, ${payouts} deleted and read again), ${s.payouts.orderConflict} ended payout-conflict`,
      `second runs of a cart: ${s.carts.duplicate} ended duplicate (${bumps.carts} version bumps, ${carts} deleted and read again), ${s.carts.orderConflict} ended cart-conflict`,
    ],
  };
}
