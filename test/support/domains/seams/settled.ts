// Seam 4: one undoable step, then the engine's settlement (which the test makes wait).
// Workflow code.
import { defineWorkflow } from '../../../../src/workflow';
import { step, type Acts, type SeamData } from './steps';

export const settled = defineWorkflow<SeamData, Acts>()({
  name: 'settled',
  domain: 'seams',
  entity: { kind: 'seam', id: (d) => d.id },
  steps: { charge: step('charge', 'refund') },
  async run({ steps }) {
    await steps.charge({ what: 'charge' });
  },
});
