import { z } from 'zod';
import { defineDomain, defineRoute } from '../../../../src';
import { createSeamActivities } from './activities';

/**
 * A test domain whose workflows sit on the run's seams (issue 41): a caught business failure
 * before a long wait, two branches that interleave, a step per item, a cancel while the
 * settlement waits, a sibling failing after the unwind began, a signal before its wait. Its
 * activities fail as a `faults` table says (activities.ts).
 */
export const seams = defineDomain({
  name: 'seams',
  entity: 'seam',
  routes: [
    defineRoute({
      eventType: 'SeamDue',
      schema: z.object({
        id: z.string(),
        skus: z.array(z.string()).optional(),
        deadline: z.string().optional(),
      }),
      workflow: 'fallback',
    }),
  ],
  workflowsPath: require.resolve('./workflows'),
  activities: createSeamActivities,
});
