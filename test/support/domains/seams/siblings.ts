// Seam 5: two steps at once, one waiting on an outage while the other is in flight.
// Workflow code.
import { defineWorkflow } from '../../../../src/workflow';
import { step, type Acts, type SeamData } from './steps';

export const siblings = defineWorkflow<SeamData, Acts>()({
  name: 'siblings',
  domain: 'seams',
  entity: { kind: 'seam', id: (d) => d.id },
  steps: { a: step('a', 'undo-a'), b: step('b', 'undo-b') },
  async run({ steps }) {
    await Promise.all([steps.a({ what: 'a' }), steps.b({ what: 'b' })]);
  },
});
