// A workflow that publishes an event its domain names no topic for.
import { defineWorkflow } from '../../../../src/workflow';

export const unroutedPublish = defineWorkflow<{ id: string }, Record<string, never>>()({
  name: 'unroutedPublish',
  domain: 'announcers',
  entity: { kind: 'thing', id: (d) => d.id },
  steps: { announce: { publish: 'ThingHappened' } },
  async run({ steps }) {
    await steps.announce({});
  },
});
