// The renewal test domain's workflows: everything a code-first workflow may say, on the
// engine's public workflow API only. Workflow code.
import { defineSignal, proxyActivities } from '@temporalio/workflow';
import { defineWorkflow, type EventWorkflowInput } from '../../../../src/workflow';
import type { RenewalActivities } from './activities';

export interface RenewalData {
  subscriptionId: string;
  amountMinor: number;
  giftWrap?: boolean;
  /** Above 1000 the renewal waits for `approveRenewal` at most this long. */
  approvalTimeout?: string;
  /** How long it sleeps before the reminder. */
  remindAfter?: string;
}

/** A person's answer to a renewal waiting for approval. */
export const approveRenewal = defineSignal<[{ approved: boolean; by: string }]>('approveRenewal');

const seat = (name: 'a' | 'b') =>
  ({
    activity: 'holdSeat',
    retry: 'own',
    compensate: {
      name: `free-${name}`,
      activity: 'freeSeat',
      retry: 'own',
      input: () => ({ seat: name }),
    },
  }) as const;

export const renewal = defineWorkflow<RenewalData, RenewalActivities>()({
  name: 'renewal',
  domain: 'renewals',
  entity: { kind: 'renewal', id: (d) => d.subscriptionId },
  outcomes: ['expired', 'refused'],
  steps: {
    charge: {
      activity: 'chargeRenewal',
      retry: 'foreign',
      compensate: {
        name: 'refund',
        activity: 'refundRenewal',
        retry: 'foreign',
        // By the charge's ID once the charge answered; by subscription while unknown.
        input: ({ data, result }) => ({
          subscriptionId: data.subscriptionId,
          ...(result ? { chargeId: result.chargeId } : {}),
        }),
      },
    },
    'seat-a': seat('a'),
    'seat-b': seat('b'),
    wrap: { activity: 'holdSeat', retry: 'own' },
    remind: { activity: 'sendReminder', retry: 'foreign' },
    sync: { activity: 'syncLedger', retry: 'own', timeout: '5 minutes', heartbeat: '1 second' },
    announce: { publish: 'RenewalCharged' },
  },
  async run({ data, steps, sleep, receive, child, fail }) {
    if (data.amountMinor > 1000) {
      const answer = await receive('approval', approveRenewal, {
        timeout: data.approvalTimeout ?? '1 day',
      });
      if (answer.timedOut) return fail('expired', 'no approval in time');
      // A signal cannot be refused: one without its answer refuses nothing and approves nothing.
      if (answer.value?.approved !== true)
        return fail('refused', `refused by ${answer.value?.by ?? 'a signal without an answer'}`);
    }
    const { chargeId } = await steps.charge({ amountMinor: data.amountMinor });
    await Promise.all([steps['seat-a']({ seat: 'a' }), steps['seat-b']({ seat: 'b' })]);
    if (data.giftWrap) await steps.wrap({ seat: 'gift' });
    await sleep('reminder', data.remindAfter ?? '1 second');
    await steps.remind({ chargeId });
    await steps.sync();
    const receipt = await child<{ receiptId: string }>('receipt', 'renewalReceipt', { chargeId });
    const published = await steps.announce({ subscriptionId: data.subscriptionId, chargeId });
    return { chargeId, receiptId: receipt.receiptId, eventId: published.eventId };
  },
});

const { sendReminder } = proxyActivities<RenewalActivities>({ startToCloseTimeout: '10 s' });

/** The child: a plain Temporal workflow that sends the receipt under a key of its own. */
export async function renewalReceipt(input: { chargeId: string }): Promise<{ receiptId: string }> {
  await sendReminder({ key: `receipt:${input.chargeId}`, chargeId: input.chargeId });
  return { receiptId: `receipt:${input.chargeId}` };
}

/** For a client that starts it by hand. */
export type RenewalInput = EventWorkflowInput<RenewalData>;
