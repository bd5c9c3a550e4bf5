// Seam 2: two branches of two steps each, run at once. Workflow code.
import { defineWorkflow } from '../../../../src/workflow';
import { step, type Acts, type SeamData } from './steps';

export const branches = defineWorkflow<SeamData, Acts>()({
  name: 'branches',
  domain: 'seams',
  entity: { kind: 'seam', id: (d) => d.id },
  steps: {
    a: step('a', 'undo-a'),
    b: step('b', 'undo-b'),
    c: step('c', 'undo-c'),
    d: step('d', 'undo-d'),
  },
  async run({ steps }) {
    const [c, d] = await Promise.all([
      (async () => {
        await steps.a({ what: 'a' });
        return steps.c({ what: 'c' });
      })(),
      (async () => {
        await steps.b({ what: 'b' });
        return steps.d({ what: 'd' });
      })(),
    ]);
    return { c: c.id, d: d.id };
  },
});
