// The step table: a saga read top to bottom, like Temporal's saga sample, as sugar over the
// engine's step primitive (run-step.ts): each row is one activity whose idempotency key
// comes from the entity and the row's name, its undo set before it runs; a row may
// run only for some runs (`when`) or publish an event. A business failure or a cancellation
// unwinds the stack; the entity's claim decides whether this run acts at all. Workflow code.
import { PUBLISH_ACTIVITY } from '../activities/publish-contract';
import type { EventWorkflowInput } from '../events/workflow-input';
import { runEntity, type RunResult, type RunSpec, type StackEntry } from './entity-run';
import { checkDefinitionNames, DEFINITION_KEY, keyNamesOf, type DefinitionMeta } from './names';
import type { SagaRuntime } from './saga-runtime';
import { keysFor } from './step-key';
import { workflowRuntime } from './saga-runtime';
import type { SagaResult } from './saga-status';
import type {
  ActivityMap,
  Compensation,
  PublishStep,
  SagaDefinition,
  SagaRow,
  SagaStep,
  StepContext,
} from './saga-types';

/** A workflow function the engine built: what Temporal runs, and its definition's names. */
export type EntityWorkflow<TData, R = SagaResult & Record<string, unknown>> = ((
  input: EventWorkflowInput<TData>,
) => Promise<R>) & {
  readonly [DEFINITION_KEY]: DefinitionMeta;
  /**
   * Every step's and compensation's key for an entity, from the one place keys are made (a
   * cancellation workflow that compensates a closed run uses the run's own keys).
   * @example payout.keysOf(payoutId).reverse
   */
  keysOf(entityId: string): Readonly<Record<string, string>>;
};

/** A saga ready to run: export it as the domain's workflow (it is the workflow function). */
export type Saga<TData, TExtra extends object = object> = EntityWorkflow<TData> & {
  readonly definition: SagaDefinition<TData, ActivityMap, TExtra>;
  /** The workflow's body, for a workflow function of your own: `(input) => saga.run(input)`. */
  run(input: EventWorkflowInput<TData>): Promise<SagaResult & Record<string, unknown>>;
};

type AnyRow = SagaRow<unknown, ActivityMap, never>;
const isPublish = (row: AnyRow): row is PublishStep<unknown, never> => 'publish' in row;

/** The names of a table: for keys, the start-up check and the queried Step values. */
function namesOf(def: SagaDefinition<never, ActivityMap, object>) {
  const rows = def.steps as readonly AnyRow[];
  const calls = rows.filter((r): r is SagaStep<unknown, ActivityMap, never> => !isPublish(r));
  return {
    steps: rows.map((r) => r.name),
    compensations: calls.flatMap((s) => s.compensate?.name ?? []),
    outcomes: calls.flatMap((s) => Object.values(s.failures ?? {})),
    publishes: rows.filter(isPublish).map((r) => r.publish),
    providers: [
      ...new Set(
        rows.flatMap((r) => [
          ...(r.provider !== undefined ? [r.provider] : []),
          ...(!isPublish(r) && r.compensate?.provider !== undefined ? [r.compensate.provider] : []),
        ]),
      ),
    ],
  };
}

/** A compensation of a row as a stack entry, in the context its key gives. */
function entryOf<TData>(
  step: string,
  comp: Compensation<TData, ActivityMap>,
  ctx: StepContext<TData>,
  kind: string,
): StackEntry {
  const input = comp.input(ctx);
  return {
    step,
    name: comp.name,
    key: ctx.key,
    activity: String(comp.activity),
    input,
    retry: comp.retry,
    local: comp.local?.() ?? false,
    summary: comp.summary?.(input) ?? `${comp.name} ${kind} ${ctx.entityId} · ${ctx.key}`,
    ...(comp.provider !== undefined ? { provider: comp.provider } : {}),
  };
}

/** What the engine runs of a table. */
export function sagaSpec<TData, TExtra extends object>(
  def: SagaDefinition<TData, ActivityMap, TExtra>,
): RunSpec<TData, TExtra> {
  const names = namesOf(def as never);
  const calls = (def.steps as readonly AnyRow[]).filter(
    (r) => !isPublish(r),
  ) as unknown as ReadonlyArray<SagaStep<TData, ActivityMap>>;
  return {
    ...def,
    keyNames: keyNamesOf(names),
    outcomes: names.outcomes,
    compensations: (ctxOf) =>
      [...calls]
        .reverse()
        .flatMap((s) =>
          s.compensate
            ? [entryOf(s.name, s.compensate, ctxOf(s.compensate.name), def.entity.kind)]
            : [],
        ),
  };
}

/** One run of a saga on a runtime (the workflow's, or a test's scripted one). */
export function runSaga<TData, TExtra extends object>(
  def: SagaDefinition<TData, ActivityMap, TExtra>,
  input: EventWorkflowInput<TData>,
  runtime: SagaRuntime,
): Promise<RunResult> {
  return runEntity(sagaSpec(def), input, runtime, async (run) => {
    for (const row of def.steps as readonly SagaRow<TData, ActivityMap, never>[]) {
      const ctx = run.ctxOf(run.keys[row.name]!);
      if (row.when && !row.when(ctx)) continue;
      if ('publish' in row) {
        await run.step(
          {
            name: row.name,
            activity: PUBLISH_ACTIVITY,
            retry: 'foreign',
            summary: `publish ${row.publish} for ${run.kind} ${run.entityId} · ${ctx.key}`,
            ...(row.provider !== undefined ? { provider: row.provider } : {}),
          },
          {
            domain: def.domain,
            eventType: row.publish,
            key: ctx.key,
            entityId: run.entityId,
            data: row.data(ctx, run.status as never),
          },
        );
        continue;
      }
      const step = row;
      const args = step.input(ctx);
      const comp = step.compensate;
      const got = await run.step(
        {
          name: step.name,
          running: step.running,
          activity: String(step.activity),
          retry: step.retry,
          local: step.local,
          summary: step.summary?.(args),
          failures: step.failures,
          timeouts: { timeout: step.timeout, heartbeat: step.heartbeat },
          ...(step.provider !== undefined ? { provider: step.provider } : {}),
          compensation: comp
            ? () => entryOf(step.name, comp, run.ctxOf(run.keys[comp.name]!), run.kind)
            : undefined,
        },
        args,
      );
      if (!got.resolved) step.done?.(got.value as never, run.status as never);
    }
  });
}

/**
 * A saga from its step table: the workflow function to export. Its names are checked here,
 * when the worker loads the module: a bad one stops the worker at start, naming it.
 *
 * @example
 * export const giftCard = defineSaga<GiftCardBought, GiftActivities>({
 *   domain: 'giftcards',
 *   entity: { kind: 'card', id: (d) => d.cardId },
 *   steps: [
 *     { name: 'issue', activity: 'issueCard', retry: 'own', input: ({ data, key }) => ({ key, cardId: data.cardId }) },
 *     { name: 'notify', activity: 'sendCard', retry: 'foreign', input: ({ data, key }) => ({ key, to: data.email }) },
 *   ],
 * });
 */
export function defineSaga<TData, A extends ActivityMap, TExtra extends object = object>(
  def: SagaDefinition<TData, A, TExtra>,
): Saga<TData, TExtra> {
  const generic = def as unknown as SagaDefinition<TData, ActivityMap, TExtra>;
  const names = namesOf(generic as never);
  const meta: DefinitionMeta = {
    workflowType: def.name,
    domain: def.domain,
    kind: def.entity.kind,
    ...names,
    engineClaims: def.claim === undefined,
  };
  checkDefinitionNames(meta);
  const run = (input: EventWorkflowInput<TData>) => runSaga(generic, input, workflowRuntime());
  // Named as exported: a client that starts it by the function starts this workflow type.
  Object.defineProperty(run, 'name', { value: def.name });
  return Object.assign(run, {
    [DEFINITION_KEY]: meta,
    definition: generic,
    run,
    keysOf: (entityId: string) => keysFor(def.entity.kind, entityId, keyNamesOf(names)),
  }) as Saga<TData, TExtra>;
}
