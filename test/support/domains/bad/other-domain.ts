// A workflow whose definition names another domain than the one that registers it.
import { defineWorkflow } from '../../../../src/workflow';

type Acts = { sendEmail(i: { key: string }): Promise<void> };

export const otherDomain = defineWorkflow<{ id: string }, Acts>()({
  name: 'otherDomain',
  domain: 'giftcard',
  entity: { kind: 'card', id: (d) => d.id },
  steps: { email: { activity: 'sendEmail', retry: 'foreign' } },
  async run({ steps }) {
    await steps.email();
  },
});
