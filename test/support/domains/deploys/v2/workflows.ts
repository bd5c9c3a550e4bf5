// Version 2 of the same renewal, deployed while version 1's runs wait on the mail API: the
// mail step renamed (email → notify: another key) and an audit step inserted before it.
// Workflow code.
import { defineWorkflow } from '../../../../../src/workflow';
import type { DeployActivities } from '../activities';

export const renewal = defineWorkflow<{ renewalId: string }, DeployActivities>()({
  name: 'renewal',
  domain: 'deploys',
  entity: { kind: 'renewal', id: (d) => d.renewalId },
  steps: {
    charge: { activity: 'chargeRenewal', retry: 'foreign' },
    audit: { activity: 'auditRenewal', retry: 'own' },
    notify: { activity: 'mailRenewal', retry: 'foreign' },
  },
  async run({ data, steps }) {
    await steps.charge({ renewalId: data.renewalId, amountMinor: 990 });
    await steps.audit({ renewalId: data.renewalId });
    await steps.notify({ renewalId: data.renewalId });
  },
});
