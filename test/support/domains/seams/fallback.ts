// Seam 1: a business failure the body catches, then a long wait. Workflow code.
import { defineWorkflow, StepFailure } from '../../../../src/workflow';
import { step, type Acts, type SeamData } from './steps';

export const fallback = defineWorkflow<SeamData, Acts>()({
  name: 'fallback',
  domain: 'seams',
  entity: { kind: 'seam', id: (d) => d.id },
  steps: {
    charge: step('charge', 'refund'),
    backup: step('backup', 'refund-backup'),
    ship: step('ship'),
  },
  async run({ steps }) {
    let paidBy = 'primary';
    try {
      await steps.charge({ what: 'charge' });
    } catch (err) {
      if (!(err instanceof StepFailure)) throw err;
      await steps.backup({ what: 'backup' });
      paidBy = 'backup';
    }
    const shipped = await steps.ship({ what: 'ship' });
    return { paidBy, shipped: shipped.id };
  },
});
