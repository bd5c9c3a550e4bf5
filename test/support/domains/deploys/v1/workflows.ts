// Version 1 of a team's renewal: charge, then mail. Workflow code.
import { defineWorkflow } from '../../../../../src/workflow';
import type { DeployActivities } from '../activities';

export const renewal = defineWorkflow<{ renewalId: string }, DeployActivities>()({
  name: 'renewal',
  domain: 'deploys',
  entity: { kind: 'renewal', id: (d) => d.renewalId },
  steps: {
    charge: { activity: 'chargeRenewal', retry: 'foreign' },
    email: { activity: 'mailRenewal', retry: 'foreign' },
  },
  async run({ data, steps }) {
    await steps.charge({ renewalId: data.renewalId, amountMinor: 990 });
    await steps.email({ renewalId: data.renewalId });
  },
});
