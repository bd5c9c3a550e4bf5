// A generated case as a workflow: one declared step per name (its undo `undo-<name>`), and the
// body that interprets the case's tree with the engine's public workflow API.
import { defineSignal } from '@temporalio/workflow';
import { defineWorkflow } from '../../../src/workflows/define-workflow';
import { StepFailure } from '../../../src/workflows/run-errors';
import type {
  ActivityStepDeclaration,
  WorkflowContext,
} from '../../../src/workflows/workflow-types';
import type { Case, Node } from './generate';

/** The activities of a generated body: a forward call and an undo, named by their input. */
export type ModelActs = {
  act(i: { key: string; name: string; item?: string }): Promise<{ v: number }>;
  undo(i: { key: string; name: string; item?: string }): Promise<{ v: number }>;
};

/** The business failure a `decline` throws, and the outcome it ends a run with. */
export const DECLINED = 'Declined';
export const DECLINED_OUTCOME = 'declined';

/** The approval signal of a generated wait: each wait its own. */
export const approveSignal = (name: string) => defineSignal<[{ by: string }]>(`approve-${name}`);

type Ctx = WorkflowContext<{ id: string }, ModelActs, Record<string, never>, object>;
type AnyStep = ((input?: object) => Promise<{ v: number }>) & {
  each(item: string, input?: object): Promise<{ v: number }>;
};

/** Runs one node of the tree. */
async function exec(node: Node, ctx: Ctx): Promise<void> {
  const steps = ctx.steps as unknown as Record<string, AnyStep>;
  switch (node.t) {
    case 'step':
      await steps[node.name]!({ name: node.name });
      return;
    case 'each':
      for (const item of node.items) await steps[node.name]!.each(item, { name: node.name, item });
      return;
    case 'seq':
      for (const n of node.body) await exec(n, ctx);
      return;
    case 'all':
      await Promise.all(node.branches.map((b) => exec(b, ctx)));
      return;
    case 'try':
      try {
        await exec(node.body, ctx);
      } catch (err) {
        if (!(err instanceof StepFailure)) throw err;
        await exec(node.fallback, ctx);
      }
      return;
    case 'if': {
      const { v } = await steps[node.name]!({ name: node.name });
      await exec(v % 2 === 0 ? node.then : node.else, ctx);
      return;
    }
    case 'sleep':
      await ctx.sleep('nap', node.ms);
      return;
    case 'approval': {
      const answer = await ctx.receive(node.name, approveSignal(node.name), { timeout: node.ms });
      if (answer.timedOut) ctx.fail('expired', `no approval ${node.name}`);
      return;
    }
    case 'child':
      await ctx.child(node.name, 'kid', {});
      return;
  }
}

/** The workflow definition of a case. */
export function definitionOf(c: Case) {
  const steps: Record<string, ActivityStepDeclaration<{ id: string }, ModelActs>> = {};
  for (const s of c.steps)
    steps[s.name] = {
      activity: 'act',
      retry: 'foreign',
      failures: { [DECLINED]: DECLINED_OUTCOME },
      ...(s.undo
        ? {
            compensate: {
              name: `undo-${s.name}`,
              activity: 'undo',
              retry: 'foreign',
              input: ({ item }) => ({
                name: `undo-${s.name}`,
                ...(item !== undefined ? { item } : {}),
              }),
            },
          }
        : {}),
    };
  return defineWorkflow<{ id: string }, ModelActs>()({
    name: 'modelled',
    domain: 'models',
    entity: { kind: 'model', id: (d) => d.id },
    outcomes: ['expired'],
    steps,
    run: (ctx) => exec(c.body, ctx as unknown as Ctx),
  }).definition;
}
