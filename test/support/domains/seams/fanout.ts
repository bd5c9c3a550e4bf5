// History limits on the real server: a fan-out wider than the budget (each item with an undo),
// and a run that sleeps in a loop to its checkpoint, then fans out items near the payload
// limit until the history budget parks it. Workflow code.
import { defineWorkflow } from '../../../../src/workflow';
import { step, type Acts, type SeamData } from './steps';

/** What the limits tests pass besides the seam's ID. */
export type FanoutData = SeamData & { count?: number; docBytes?: number };

export const fanout = defineWorkflow<FanoutData, Acts>()({
  name: 'fanout',
  domain: 'seams',
  entity: { kind: 'seam', id: (d) => d.id },
  steps: { item: step('item', 'unitem') },
  async run({ data, steps }) {
    await Promise.all(
      Array.from({ length: data.count ?? 1000 }, (_, i) =>
        steps.item.each(`i-${i}`, { what: 'item' }),
      ),
    );
  },
});

export const limits = defineWorkflow<FanoutData, Acts>()({
  name: 'limits',
  domain: 'seams',
  entity: { kind: 'seam', id: (d) => d.id },
  steps: { pay: step('pay', 'refund'), label: step('label', 'void') },
  async run({ data, steps, sleep, checkpoint, resumed }) {
    if (resumed === undefined) {
      await steps.pay({ what: 'pay' });
      // A poll loop: it goes on in the next run of its chain once its history is long.
      for (;;) {
        await checkpoint({ next: 'labels' });
        await Promise.all(Array.from({ length: 50 }, (_, i) => sleep(`tick-${i}`, '1 ms')));
      }
    }
    const doc = 'x'.repeat(data.docBytes ?? 900_000);
    await Promise.all(
      Array.from({ length: data.count ?? 60 }, (_, i) =>
        steps.label.each(`l-${i}`, { what: 'label', doc } as { what: string }),
      ),
    );
  },
});
