// A step of the seams domain: one call of seamCall named `what`, undone by seamUndo `undo`.
// Pure (workflow code).
import type { ActivityStepDeclaration } from '../../../../src/workflow';
import type { SeamActivities } from './activities';

export type SeamData = { id: string; skus?: string[]; deadline?: string };

export function step(what: string, undo?: string): ActivityStepDeclaration<SeamData, Acts> {
  return {
    activity: 'seamCall',
    retry: 'foreign',
    running: what,
    failures: { Declined: 'declined' },
    ...(undo
      ? {
          compensate: {
            name: undo,
            activity: 'seamUndo',
            retry: 'foreign',
            input: () => ({ what: undo }),
          },
        }
      : {}),
  };
}

export type Acts = SeamActivities;
