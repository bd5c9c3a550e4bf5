// A domain's workflow as plain async code: the engine claims the entity, then the body awaits
// its declared steps (each one activity with a key from the entity and the step, a recovery
// point, an undo set before it runs, its result returned), and may branch, run steps at once,
// loop over items (`steps.x.each(item, input)`: a key per item), catch a business failure,
// sleep, wait for an approval, start a child and publish events. Workflow code.
import { PUBLISH_ACTIVITY } from '../activities/publish-contract';
import type { EventWorkflowInput } from '../events/workflow-input';
import type { RunInput } from './run-checkpoint';
import {
  runEntity,
  type EntityRun,
  type RunResult,
  type RunSpec,
  type StackEntry,
} from './entity-run';
import {
  checkDefinitionNames,
  keyNamesOf,
  DEFINITION_KEY,
  WorkflowDefinitionError,
  type DefinitionMeta,
} from './names';
import { RunEnded } from './run-errors';
import { createWaits } from './run-waits';
import type { EntityWorkflow } from './saga';
import { workflowRuntime, type SagaRuntime } from './saga-runtime';
import { keysFor, stepKey } from './step-key';
import type { ActivityMap, StepContext } from './saga-types';
import type {
  ActivityStepDeclaration,
  StepDeclaration,
  WorkflowContext,
  WorkflowDefinition,
} from './workflow-types';

type AnyDefinition = WorkflowDefinition<
  unknown,
  ActivityMap,
  Record<string, StepDeclaration<unknown, ActivityMap>>,
  object
>;
type AnyStep = ActivityStepDeclaration<unknown, ActivityMap>;
const isPublish = (d: StepDeclaration<unknown, ActivityMap>): d is { publish: string } =>
  'publish' in d;

/** The names of a definition: for keys, the start-up check and the queried Step values. */
function namesOf(def: AnyDefinition) {
  const entries = Object.entries(def.steps);
  const calls = entries.filter((e): e is [string, AnyStep] => !isPublish(e[1]));
  const childUndos = Object.values(def.children ?? {}).flatMap((c) => c.compensate?.name ?? []);
  return {
    steps: entries.map(([name]) => name),
    compensations: [...calls.flatMap(([, d]) => d.compensate?.name ?? []), ...childUndos],
    outcomes: [
      ...calls.flatMap(([, d]) => Object.values(d.failures ?? {})),
      ...(def.outcomes ?? []),
    ],
    publishes: entries.flatMap(([, d]) => (isPublish(d) ? [d.publish] : [])),
    providers: [
      ...new Set(
        entries.flatMap(([, d]) => [
          ...(d.provider !== undefined ? [d.provider] : []),
          ...(!isPublish(d) && d.compensate?.provider !== undefined ? [d.compensate.provider] : []),
        ]),
      ),
    ],
  };
}

/** A step's undo, from the run and what is known of the step (its item, input, result). */
function entryOf(
  step: string,
  decl: AnyStep,
  ctx: StepContext<unknown>,
  kind: string,
  known: { item?: string; input?: object; result?: unknown } = {},
): StackEntry | undefined {
  const comp = decl.compensate;
  if (!comp) return undefined;
  const key =
    known.item === undefined ? ctx.key : stepKey(kind, ctx.entityId, comp.name, known.item);
  const input = { ...(comp.input({ ...ctx, key, ...known } as never) as object), key };
  return {
    step,
    name: comp.name,
    ...(known.item !== undefined ? { item: known.item } : {}),
    key,
    activity: String(comp.activity),
    input,
    retry: comp.retry,
    local: false,
    summary: comp.summary?.(input) ?? `${comp.name} ${kind} ${ctx.entityId} · ${key}`,
    ...(comp.provider !== undefined ? { provider: comp.provider } : {}),
  };
}

function workflowSpec(def: AnyDefinition): RunSpec<unknown, object> {
  const names = namesOf(def);
  const calls = Object.entries(def.steps).filter((e): e is [string, AnyStep] => !isPublish(e[1]));
  return {
    ...def,
    keyNames: keyNamesOf(names),
    outcomes: names.outcomes,
    compensations: (ctxOf) =>
      [...calls]
        .reverse()
        .flatMap(([name, d]) =>
          d.compensate ? [entryOf(name, d, ctxOf(d.compensate.name), def.entity.kind)!] : [],
        ),
  };
}

/** The functions `steps.<name>` of one run: a call, and `.each(item, input)` per item. */
function stepFunctions(def: AnyDefinition, run: EntityRun) {
  const steps: Record<string, StepCall> = {};
  for (const [name, decl] of Object.entries(def.steps)) {
    const call = isPublish(decl)
      ? (item: string | undefined, data?: object) => {
          const key =
            item === undefined ? run.keys[name]! : stepKey(run.kind, run.entityId, name, item);
          return run.step(
            {
              name,
              activity: PUBLISH_ACTIVITY,
              retry: 'foreign',
              summary: `publish ${decl.publish} for ${run.kind} ${run.entityId} · ${key}`,
              ...(decl.provider !== undefined ? { provider: decl.provider } : {}),
            },
            { domain: def.domain, eventType: decl.publish, key, entityId: run.entityId, data },
            item,
          );
        }
      : (item: string | undefined, given: object = {}) => {
          const key =
            item === undefined ? run.keys[name]! : stepKey(run.kind, run.entityId, name, item);
          const args = { ...given, key };
          const comp = decl.compensate;
          return run.step(
            {
              name,
              running: decl.running,
              activity: String(decl.activity),
              retry: decl.retry,
              local: decl.local ? () => true : undefined,
              summary: decl.summary?.(args),
              failures: decl.failures,
              timeouts: { timeout: decl.timeout, heartbeat: decl.heartbeat },
              ...(decl.provider !== undefined ? { provider: decl.provider } : {}),
              compensation: comp
                ? (result?: unknown) =>
                    entryOf(name, decl, run.ctxOf(run.keys[comp.name]!), run.kind, {
                      ...(item !== undefined ? { item } : {}),
                      input: given,
                      ...(result !== undefined ? { result } : {}),
                    })!
                : undefined,
            },
            args,
            item,
          );
        };
    steps[name] = Object.assign(async (input?: object) => (await call(undefined, input)).value, {
      each: async (item: string, input?: object) => {
        if (typeof item !== 'string' || item.length === 0)
          throw new WorkflowDefinitionError(
            `domain ${def.domain}: steps.${name}.each needs a non-empty item ID (a string), got ${JSON.stringify(item)}`,
          );
        return (await call(item, input)).value;
      },
    });
  }
  return steps;
}

type StepCall = ((input?: object) => Promise<unknown>) & {
  each(item: string, input?: object): Promise<unknown>;
};

/** One run of a code-first workflow on a runtime (the workflow's, or a test's scripted one). */
export function runWorkflow(
  def: AnyDefinition,
  input: RunInput<unknown>,
  runtime: SagaRuntime,
): Promise<RunResult> {
  const outcomes = new Set(namesOf(def).outcomes);
  return runEntity(workflowSpec(def), input, runtime, async (run) => {
    const waits = createWaits({
      ...run,
      childUndo: (name, result) => {
        const decl = def.children?.[name];
        if (!decl?.compensate) return undefined;
        const ctx = run.ctxOf(run.keys[decl.compensate.name]!);
        return entryOf(
          name,
          decl as AnyStep,
          ctx,
          run.kind,
          result === undefined ? {} : { result },
        );
      },
    });
    const ctx: WorkflowContext<unknown, ActivityMap, Record<string, never>, object> = {
      data: run.data,
      event: input.event,
      entityId: run.entityId,
      workflowId: run.workflowId,
      keys: run.keys,
      claimant: run.claimant,
      status: run.status,
      steps: stepFunctions(def, run) as never,
      sleep: waits.sleep,
      receive: waits.receive,
      waitFor: waits.waitFor,
      child: waits.child,
      checkpoint: waits.checkpoint,
      ...(input.resume ? { resumed: input.resume.body } : {}),
      fail: (outcome, reason) => {
        if (!outcomes.has(outcome))
          throw new WorkflowDefinitionError(
            `domain ${def.domain}: outcome ${JSON.stringify(outcome)} is not declared (outcomes, or a step's failures)`,
          );
        throw new RunEnded(outcome, reason);
      },
    };
    return def.run(ctx as never);
  });
}

/**
 * A workflow written as code: the workflow function to export. The empty first call fixes
 * the event data's and the activities' types; the steps' are inferred from the declaration.
 * Names are checked when the worker loads the module: a bad one stops the worker at start.
 *
 * @example
 * export const giftCard = defineWorkflow<CardBought, Activities>()({
 *   domain: 'giftcards',
 *   entity: { kind: 'card', id: (d) => d.cardId },
 *   steps: {
 *     issue: { activity: 'issueCard', retry: 'own' },
 *     email: { activity: 'emailCard', retry: 'foreign' },
 *   },
 *   async run({ data, steps }) {
 *     const card = await steps.issue({ cardId: data.cardId });
 *     if (data.email) await steps.email({ to: data.email, code: card.code });
 *   },
 * });
 */
export function defineWorkflow<TData, A extends ActivityMap, TExtra extends object = object>() {
  return <S extends Record<string, StepDeclaration<TData, A>>>(
    def: WorkflowDefinition<TData, A, S, TExtra>,
  ): EntityWorkflow<TData> & { readonly definition: WorkflowDefinition<TData, A, S, TExtra> } => {
    const generic = def as unknown as AnyDefinition;
    const meta: DefinitionMeta = {
      workflowType: def.name,
      domain: def.domain,
      kind: def.entity.kind,
      ...namesOf(generic),
      engineClaims: def.claim === undefined,
    };
    checkDefinitionNames(meta);
    if (def.claim && !(def.claim.step in def.steps))
      throw new WorkflowDefinitionError(
        `domain ${def.domain}: claim.step ${JSON.stringify(def.claim.step)} is not one of its steps`,
      );
    const workflow = (input: EventWorkflowInput<TData>) =>
      runWorkflow(generic, input as EventWorkflowInput<unknown>, workflowRuntime());
    // Named as exported: a client that starts it by the function starts this workflow type.
    Object.defineProperty(workflow, 'name', { value: def.name });
    return Object.assign(workflow, {
      [DEFINITION_KEY]: meta,
      definition: def,
      keysOf: (entityId: string) => keysFor(def.entity.kind, entityId, keyNamesOf(meta)),
    });
  };
}
