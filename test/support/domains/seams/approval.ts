// Seam 6: a step that waits on an outage, then a wait for a signal that may have arrived
// during it. Workflow code.
import { defineSignal } from '@temporalio/workflow';
import { defineWorkflow } from '../../../../src/workflow';
import { step, type Acts, type SeamData } from './steps';

/** A person's answer; sent with or without a payload. */
export const approveSeam = defineSignal<[{ by: string } | undefined]>('approveSeam');

export const approval = defineWorkflow<SeamData, Acts>()({
  name: 'approval',
  domain: 'seams',
  entity: { kind: 'seam', id: (d) => d.id },
  outcomes: ['expired'],
  steps: { prepare: step('prepare'), go: step('go') },
  async run({ steps, receive, fail }) {
    await steps.prepare({ what: 'prepare' });
    const answer = await receive('approval', approveSeam, { timeout: '1 hour' });
    if (answer.timedOut) return fail('expired', 'no approval within an hour');
    await steps.go({ what: 'go' });
    return { approvedBy: answer.value?.by ?? 'a signal without a payload' };
  },
});
