// The longest run the engine allows, in small: a step that waits its whole window and parks
// (twice, an operator retrying), an approval that waits its deadline and expires, and the
// undo that then waits its whole window and parks (twice) before it runs. Workflow code.
import { defineWorkflow } from '../../../../src/workflow';
import { approveSeam } from './approval';
import { step, type Acts, type SeamData } from './steps';

export const longest = defineWorkflow<SeamData, Acts>()({
  name: 'longest',
  domain: 'seams',
  entity: { kind: 'seam', id: (d) => d.id },
  outcomes: ['expired'],
  steps: { pay: step('pay', 'refund'), ship: step('ship') },
  async run({ data, steps, receive, fail }) {
    await steps.pay({ what: 'pay' });
    const answer = await receive('approval', approveSeam, { timeout: data.deadline ?? '1 hour' });
    if (answer.timedOut) return fail('expired', 'no approval before the deadline');
    await steps.ship({ what: 'ship' });
  },
});
