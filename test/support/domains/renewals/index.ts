import { z } from 'zod';
import { defineDomain, defineRoute } from '../../../../src';
import { createRenewalActivities } from './activities';

/**
 * A test domain that says everything code-first workflows can: results passed on, a step by
 * `if`, steps at once, a sleep, an approval with a deadline, a child, a heartbeat timeout and
 * a publication. Its events topic is the worker's RENEWALS_TEST_TOPIC (each test its own).
 */
export const renewals = defineDomain({
  name: 'renewals',
  entity: 'renewal',
  routes: [
    defineRoute({
      eventType: 'RenewalDue',
      schema: z.object({ subscriptionId: z.string(), amountMinor: z.number().int() }),
      workflow: 'renewal',
    }),
  ],
  workflowsPath: require.resolve('./workflows'),
  activities: createRenewalActivities,
  publishes: { RenewalCharged: () => process.env.RENEWALS_TEST_TOPIC ?? 'renewal-events' },
});
