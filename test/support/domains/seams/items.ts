// Seam 3: one step per item of a loop, each with its own key and undo. Workflow code.
import { defineWorkflow } from '../../../../src/workflow';
import { step, type Acts, type SeamData } from './steps';

export const items = defineWorkflow<SeamData, Acts>()({
  name: 'items',
  domain: 'seams',
  entity: { kind: 'seam', id: (d) => d.id },
  outcomes: ['abandoned'],
  steps: { reserve: step('reserve', 'release'), pay: step('pay') },
  async run({ data, steps, fail }) {
    const reserved: string[] = [];
    for (const sku of data.skus ?? []) {
      const r = await steps.reserve.each(sku, { what: 'reserve' });
      reserved.push(r.id);
    }
    if (data.id.endsWith('-abandon')) return fail('abandoned', 'the test abandons this cart');
    await steps.pay({ what: 'pay' });
    return { reserved };
  },
});
