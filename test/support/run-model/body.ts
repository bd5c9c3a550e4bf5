// A generated case as a workflow: one declared step per name (its undo `undo-<name>`, whose
// input carries the step's result, as docs/api.md's refund does), the claim (the engine's,
// or a step's own), and the body that interprets the case's tree with the engine's public
// workflow API. `build` 2 is the case deployed with a change (runs.ts replays it).
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../../../src/workflows/define-workflow';
import { StepFailure } from '../../../src/workflows/run-errors';
import type {
  ActivityStepDeclaration,
  WorkflowContext,
} from '../../../src/workflows/workflow-types';
import type { Case, Node } from './generate';

/** The activities of a generated body: a forward call and an undo, named by their input. */
export type ModelActs = {
  act(i: { key: string; name: string; item?: string; pad?: string }): Promise<{ v: number }>;
  act2(i: { key: string; name: string; item?: string }): Promise<{ v: number }>;
  undo(i: { key: string; name: string; item?: string; v?: number }): Promise<{ v: number }>;
  claimCancelled(i: object): Promise<unknown>;
  settle(i: { settled: string }): Promise<void>;
};

/** The business failure a `decline` throws, and the outcome it ends a run with. */
export const DECLINED = 'Declined';
export const DECLINED_OUTCOME = 'declined';

/** The owner a not-owner verdict names (another workflow of the same entity). */
export const OWNER = {
  workflowId: 'owner-wf',
  runId: 'owner-run',
  fingerprint: 'f'.repeat(64),
  claimedAt: '2026-11-27T11:00:00Z',
};

/** The approval signal and update of a generated wait: each wait its own. */
export const approveSignal = (name: string) => defineSignal<[{ by: string }]>(`approve-${name}`);
export const approveUpdate = (name: string) =>
  defineUpdate<void, [{ ok: boolean; by: string }]>(`approve-${name}`);

/** What a deploy changes in build 2: one step's activity type, or later steps' input. */
export interface Build {
  n: 1 | 2;
  /** build 2: the step whose activity is `act2`. */
  activityOf?: string;
  /** build 2: steps whose input gains `build: 2` (none of them sent under build 1). */
  inputOf?: ReadonlySet<string>;
}

type Ctx = WorkflowContext<{ id: string }, ModelActs, Record<string, never>, object>;
type AnyStep = ((input?: object) => Promise<{ v: number }>) & {
  each(item: string, input?: object): Promise<{ v: number }>;
};

/** Runs one node of the tree. */
async function exec(node: Node, ctx: Ctx, c: Case, b: Build): Promise<void> {
  const steps = ctx.steps as unknown as Record<string, AnyStep>;
  const input = (name: string, item?: string) => {
    const pad = c.steps.find((s) => s.name === name)?.pad;
    return {
      name,
      ...(item !== undefined ? { item } : {}),
      ...(pad ? { pad: 'x'.repeat(pad) } : {}),
      ...(b.inputOf?.has(name) ? { build: 2 } : {}),
    };
  };
  switch (node.t) {
    case 'step':
      await steps[node.name]!(input(node.name));
      return;
    case 'each':
      for (const item of node.items) await steps[node.name]!.each(item, input(node.name, item));
      return;
    case 'fan':
      await Promise.all(
        Array.from({ length: node.items }, (_, i) =>
          steps[node.name]!.each(`i${i}`, input(node.name, `i${i}`)),
        ),
      );
      return;
    case 'seq':
      for (const n of node.body) await exec(n, ctx, c, b);
      return;
    case 'all':
      await Promise.all(node.branches.map((n) => exec(n, ctx, c, b)));
      return;
    case 'try':
      try {
        await exec(node.body, ctx, c, b);
      } catch (err) {
        if (!(err instanceof StepFailure)) throw err;
        await exec(node.fallback, ctx, c, b);
      }
      return;
    case 'if': {
      const { v } = await steps[node.name]!(input(node.name));
      await exec(v % 2 === 0 ? node.then : node.else, ctx, c, b);
      return;
    }
    case 'sleep':
      await ctx.sleep('nap', node.ms);
      return;
    case 'loop':
      for (let i = 0; i < node.n; i++) await ctx.sleep('poll', node.ms);
      return;
    case 'approval': {
      const answer =
        node.via === 'signal'
          ? await ctx.receive(node.name, approveSignal(node.name), { timeout: node.ms })
          : await ctx.receive(node.name, approveUpdate(node.name), {
              timeout: node.ms,
              validate: (a) => {
                if (a?.ok !== true) throw new Error('approve with ok: true');
              },
            });
      if (answer.timedOut) ctx.fail('expired', `no approval ${node.name}`);
      return;
    }
    case 'child':
      // A child's undo, where the case declares one, is the definition's (`children`).
      await ctx.child(node.name, 'kid', { name: node.name });
      return;
    case 'children': {
      const one = (i: number) =>
        ctx.child(`${node.name}-${i}`, 'kid', { name: `${node.name}-${i}` });
      if (node.parallel) await Promise.all(Array.from({ length: node.n }, (_, i) => one(i)));
      else for (let i = 0; i < node.n; i++) await one(i);
      return;
    }
  }
}

/** The workflow definition of a case (`build` 2: as deployed with its change). */
export function definitionOf(c: Case, b: Build = { n: 1 }) {
  const steps: Record<string, ActivityStepDeclaration<{ id: string }, ModelActs>> = {};
  for (const s of c.steps)
    steps[s.name] = {
      activity: b.activityOf === s.name ? 'act2' : 'act',
      retry: 'foreign',
      failures: { [DECLINED]: DECLINED_OUTCOME },
      ...(s.undo
        ? {
            compensate: {
              name: `undo-${s.name}`,
              activity: 'undo',
              retry: 'foreign',
              input: ({ item, result }: { item?: string; result?: unknown }) => ({
                name: `undo-${s.name}`,
                ...(item !== undefined ? { item } : {}),
                ...(result !== undefined ? { v: (result as { v?: number }).v } : {}),
              }),
            },
          }
        : {}),
    } as ActivityStepDeclaration<{ id: string }, ModelActs>;
  const verdictOf = (r: { verdict?: 'duplicate' | 'conflict' }) =>
    r?.verdict ? { kind: r.verdict, claim: OWNER } : undefined;
  return defineWorkflow<{ id: string }, ModelActs>()({
    name: 'modelled',
    domain: 'models',
    entity: { kind: 'model', id: (d) => d.id },
    outcomes: ['expired'],
    steps,
    // A child with an undo: `undo-<name>`, run in the parent's unwind once it completed.
    children: Object.fromEntries(
      c.children
        .filter((k) => k.undo)
        .map((k) => [
          k.name,
          {
            compensate: {
              name: `undo-${k.name}`,
              activity: 'undo' as const,
              retry: 'foreign' as const,
              input: () => ({ name: `undo-${k.name}` }),
            },
          },
        ]),
    ),
    ...(c.claimStep
      ? {
          claim: {
            step: c.claimStep,
            verdict: verdictOf as never,
            cancelled: { activity: 'claimCancelled', retry: 'own', input: () => ({}) },
            settle: {
              activity: 'settle',
              input: (_ctx: unknown, settled: string) => ({ settled }),
            },
          } as never,
        }
      : {}),
    run: (ctx) => exec(c.body, ctx as unknown as Ctx, c, b),
  }).definition;
}
