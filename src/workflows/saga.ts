// The saga runner: a step table read top to bottom, like Temporal's saga sample, with a
// compensation stack. Each step is one activity whose idempotency key comes from the entity
// and the step; a business failure or a cancellation unwinds the stack; the entity's claim
// decides whether this run acts at all, and the owner settles it at the end. Workflow code.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ClaimRecord, ClaimVerdict } from '../db/entity-claim';
import type { EventWorkflowInput } from '../events/workflow-input';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import type { SagaDisplay } from './details';
import { currentDetailsOf } from './details';
import { describeFailure } from './failures';
import { endWithoutActing } from './not-owner';
import { installOperatorHandlers } from './operator';
import { foreignBudget, ownBudget, SETTLE_BUDGET, type RetryClass } from './retry-classes';
import { workflowRuntime, type SagaProxies, type SagaRuntime } from './saga-runtime';
import { cancelSignal, statusQuery, type SagaResult, type SagaStatus } from './saga-status';
import type { ActivityMap, AnyCall, ClaimOutcome, SagaDefinition, StepContext } from './saga-types';
import { createStepRunner, type StepRunnerContext } from './step-runner';
import { stepKey } from './step-key';

/** A saga ready to run: `run` is the body of the domain's workflow function. */
export interface Saga<TData, TExtra extends object = object> {
  readonly definition: SagaDefinition<TData, ActivityMap, TExtra>;
  run(input: EventWorkflowInput<TData>): Promise<SagaResult & Record<string, unknown>>;
}

/** The engine's claim activities (src/activities/claims.ts), for sagas without their own. */
const ENGINE_CLAIM = { claim: 'claimEntity', settle: 'settleClaim' } as const;

/** Step values an operator queries: parked, waiting, and every ending (the rest: details only). */
function queriedSteps(def: SagaDefinition<never, ActivityMap, object>): ReadonlySet<string> {
  const endings = def.steps.flatMap((s) => Object.values(s.failures ?? {}));
  return new Set([
    'needs_attention',
    'waiting',
    'completed',
    'cancelled',
    'duplicate',
    `${def.entity.kind}_conflict`,
    ...endings.map((o) => o.replace(/-/g, '_')),
  ]);
}

/**
 * Cancelled before its claiming step's result reached history, a run that finds the claim
 * already its own undoes that step. Histories before this patch ended without the undo.
 */
export const UNDO_LOST_CLAIM_STEP_PATCH = 'undo-lost-claim-step-on-cancel';

/**
 * A saga from its definition: the activity proxies of its retry classes are declared here,
 * once, at the top of the domain's workflow module (where defineSaga is called).
 *
 * @example
 * const card = defineSaga<GiftCardBought, GiftActivities>({
 *   domain: 'giftcards',
 *   entity: { kind: 'card', id: (d) => d.cardId },
 *   steps: [
 *     { name: 'issue', activity: 'issueCard', retry: 'own', input: ({ data, key }) => ({ key, cardId: data.cardId }) },
 *     { name: 'notify', activity: 'sendCard', retry: 'foreign', input: ({ data, key }) => ({ key, to: data.email }) },
 *   ],
 * });
 * export const giftCard = (input: EventWorkflowInput<GiftCardBought>) => card.run(input);
 */
export function defineSaga<TData, A extends ActivityMap, TExtra extends object = object>(
  def: SagaDefinition<TData, A, TExtra>,
): Saga<TData, TExtra> {
  const names = [
    ...def.steps.map((s) => s.name),
    ...def.steps.flatMap((s) => s.compensate?.name ?? []),
  ];
  if (new Set(names).size !== names.length)
    throw new TypeError(`saga steps repeat a name: ${names.join(', ')}`);
  const failures = (retry: RetryClass) =>
    def.steps.filter((s) => s.retry === retry).flatMap((s) => Object.keys(s.failures ?? {}));
  const proxies: SagaProxies = {
    foreign: {
      remote: proxyActivities(foreignBudget(failures('foreign'))),
      local: proxyLocalActivities(foreignBudget(failures('foreign'))),
    },
    own: {
      remote: proxyActivities(ownBudget(failures('own'))),
      local: proxyLocalActivities(ownBudget(failures('own'))),
    },
    settle: { remote: {}, local: proxyLocalActivities(SETTLE_BUDGET) },
  } as unknown as SagaProxies;
  const generic = def as unknown as SagaDefinition<TData, ActivityMap, TExtra>;
  return {
    definition: generic,
    run: (input) => runSaga(generic, input, workflowRuntime(proxies)),
  };
}

/** One run of a saga on a runtime (the workflow's, or a test's scripted one). */
export async function runSaga<TData, TExtra extends object>(
  def: SagaDefinition<TData, ActivityMap, TExtra>,
  input: EventWorkflowInput<TData>,
  runtime: SagaRuntime,
): Promise<SagaResult & Record<string, unknown>> {
  const data = input.data;
  const kind = def.entity.kind;
  const entityId = def.entity.id(data);
  const info = runtime.info();
  const workflowId = info.workflowId;
  // The run as the claim knows it: its chain's first run ID and start, both kept by a reset.
  const claimant = {
    workflowId,
    runId: info.firstExecutionRunId,
    startedAt: info.startTime.toISOString(),
    fingerprint: input.event.fingerprint,
  };
  const keyNames = [
    ...def.steps.map((s) => s.name),
    ...[...def.steps].reverse().flatMap((s) => s.compensate?.name ?? []),
  ];
  const keys = Object.fromEntries(keyNames.map((n) => [n, stepKey(kind, entityId, n)]));
  const status = {
    entityId,
    ...def.status?.(data),
    step: 'received',
    recoveryPoints: [],
    keys,
  } as SagaStatus & TExtra;
  const display: SagaDisplay = {
    entity: kind,
    cli: def.cli ?? def.domain,
    cancelSignal: (def.channels?.cancel ?? cancelSignal).name,
    counterpart: (step) => def.counterpart?.[step] ?? `the ${step} call`,
  };
  const pending: StepRunnerContext['pending'] = {};
  let compensating = false;
  installOperatorHandlers(
    runtime,
    { cancel: def.channels?.cancel ?? cancelSignal, status: def.channels?.status ?? statusQuery },
    status,
    pending,
  );

  const onlyQueried = def.compat?.onlyQueriedSteps?.() ?? true;
  const queried = queriedSteps(def as never);
  /** The Step value in visibility (undefined: not set, the run is running). */
  let visibleStep: string | undefined;
  const setStep = (step: string) => {
    status.step = step;
    if (!onlyQueried) {
      runtime.upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.step, value: step }]);
    } else {
      // A running step clears a waiting/parked value, so those queries never list a run that
      // runs again; otherwise running steps write nothing.
      const next = queried.has(step) ? step : undefined;
      if (next !== visibleStep) {
        runtime.upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.step, value: next ?? null }]);
        visibleStep = next;
      }
    }
    runtime.setCurrentDetails(currentDetailsOf(display, status));
  };
  // The bridge sets these at start; a start without them (tests, manual starts) gets them here.
  if (!runtime.startedWith(SEARCH_ATTRIBUTE.eventId)) {
    const customerId = def.entity.customerId?.(data);
    runtime.upsertSearchAttributes([
      { key: SEARCH_ATTRIBUTE.entityId, value: entityId },
      ...(customerId !== undefined
        ? [{ key: SEARCH_ATTRIBUTE.customerId, value: customerId }]
        : []),
      { key: SEARCH_ATTRIBUTE.eventId, value: input.event.eventId },
      { key: SEARCH_ATTRIBUTE.eventType, value: input.event.eventType },
    ]);
  }
  setStep('received');
  const cancelled = () => !compensating && status.cancellation !== undefined;
  const runStep = createStepRunner({
    runtime,
    display,
    status,
    setStep,
    pending,
    cancelled,
    transientWaits: def.compat?.transientWaits,
  });
  const ctxOf = (
    key: string,
    onBehalfOf?: StepContext<TData>['onBehalfOf'],
  ): StepContext<TData> => ({
    data,
    event: input.event,
    entityId,
    key,
    keys,
    workflowId,
    claimant,
    ...(onBehalfOf ? { onBehalfOf } : {}),
  });
  const call = (spec: AnyCall<TData, ActivityMap>, name: string, ctx: StepContext<TData>) => {
    const args = spec.input(ctx);
    return runtime.execute({
      activity: String(spec.activity),
      input: args,
      retry: spec.retry,
      local: spec.local?.() ?? false,
      summary: spec.summary?.(args) ?? `${name} ${kind} ${entityId} · ${ctx.key}`,
    });
  };
  const finish = (step: string, result: SagaResult): SagaResult & Record<string, unknown> => {
    status.outcome = result.outcome;
    setStep(step);
    return { ...(def.result ? def.result(status) : { entityId }), ...result };
  };

  /** The owner records how the entity ended on its claim: the memory that never expires. */
  async function settle(settled: string): Promise<boolean> {
    const ctx = ctxOf(keys[def.steps[0]?.name ?? ''] ?? '');
    const own = def.claim?.settle;
    if (own && !(own.when?.() ?? true)) return false;
    const args = own
      ? own.input(ctx, settled)
      : { domain: def.domain, entityId, ...claimant, settled };
    await runtime.execute({
      activity: own ? String(own.activity) : ENGINE_CLAIM.settle,
      input: args,
      retry: 'settle',
      local: true,
      summary: own?.summary?.(args) ?? `settle ${kind} ${entityId} as ${settled} for ${workflowId}`,
    });
    return true;
  }

  /** The compensation stack: a step's entry is pushed before it runs (its outcome unknown). */
  const stack: Array<(typeof def.steps)[number]> = [];
  /** Whether this run knows it owns the entity (its claim was written, or found its own). */
  let claimed = false;
  const claimStep = def.claim?.step;

  /** Undoes, in reverse, every step that did (or may have done) its effect. */
  async function unwind(onBehalfOf?: StepContext<TData>['onBehalfOf']): Promise<void> {
    const steps = onBehalfOf ? def.steps : stack;
    for (const step of [...steps].reverse()) {
      const comp = step.compensate;
      if (!comp) continue;
      await runStep(comp.name, 'compensating', () =>
        call(comp, comp.name, ctxOf(keys[comp.name]!, onBehalfOf)),
      );
    }
  }

  const endAsNotOwner = (verdict: Exclude<ClaimVerdict<ClaimRecord>, { kind: 'owner' }>) =>
    endWithoutActing(
      {
        runtime,
        status,
        display,
        workflowId,
        entityId,
        fingerprint: input.event.fingerprint,
        cancel: def.channels?.cancel ?? cancelSignal,
        startCompensating: () => (compensating = true),
        compensateFor: async (owner) => {
          await unwind(owner);
          // A claim of the engine's own is settled here; a domain that claims in its own step
          // settles the owner's claim inside its compensation's transaction (orders: release).
          if (!def.claim)
            await runtime.execute({
              activity: ENGINE_CLAIM.settle,
              input: {
                domain: def.domain,
                entityId,
                ...owner,
                fingerprint: verdict.claim.fingerprint,
                settled: 'unwound',
              },
              retry: 'settle',
              local: true,
              summary: `settle ${kind} ${entityId} as unwound for ${owner.workflowId}`,
            });
        },
        finish,
      },
      verdict,
    );

  /** A verdict that says another run owns the entity, or undefined (this run does). */
  const otherOwner = (verdict: ClaimOutcome | undefined) => {
    if (verdict?.kind === 'owner' && verdict.reopened) status.reopened = verdict.reopened;
    return verdict && verdict.kind !== 'owner' ? verdict : undefined;
  };

  /** Cancelled: claims the entity as cancelled if not yet, unwinds, settles `cancelled`. */
  async function compensate(): Promise<SagaResult & Record<string, unknown>> {
    compensating = true;
    if (!claimed) {
      // Cancelled before this run knew it owned the entity: claim it as cancelled (so a
      // re-send cannot act on a cancelled entity), or learn the owner and hand over.
      const spec = def.claim?.cancelled;
      const name = claimStep ?? 'claim';
      const got = await runStep(name, 'compensating', () =>
        spec
          ? call(spec, name, ctxOf(keys[name] ?? ''))
          : runtime.execute({
              activity: ENGINE_CLAIM.claim,
              input: { domain: def.domain, entityId, ...claimant, cancelled: true },
              retry: 'own',
              local: true,
              summary: `claim cancelled ${kind} ${entityId} for ${workflowId}`,
            }),
      );
      const verdict = got.kind === 'done' ? (got.value as ClaimVerdict<ClaimRecord>) : undefined;
      const other = otherOwner(verdict);
      if (other) {
        if (claimStep && stack[0]?.name === claimStep) stack.shift();
        return endAsNotOwner(other);
      }
      // Ours already, and not as cancelled just now: this run's claiming step committed its
      // effect with the claim (a reservation) but its result never reached history (a local
      // activity whose workflow task timed out, a worker killed after the commit). Undo it.
      const step = def.steps.find((s) => s.name === claimStep);
      if (
        step &&
        verdict?.kind === 'owner' &&
        verdict.claim !== undefined &&
        verdict.claim.settled === undefined &&
        !stack.includes(step) &&
        runtime.patched(UNDO_LOST_CLAIM_STEP_PATCH)
      )
        stack.unshift(step);
    }
    await unwind();
    await settle('cancelled');
    return finish('cancelled', { outcome: 'cancelled', reason: status.cancellation?.reason });
  }

  if (!def.claim) {
    // The engine's claim: one local activity before the first step.
    if (cancelled()) return compensate();
    const got = await runStep('claim', 'claiming', () =>
      runtime.execute({
        activity: ENGINE_CLAIM.claim,
        input: { domain: def.domain, entityId, ...claimant },
        retry: 'own',
        local: true,
        summary: `claim ${kind} ${entityId} for ${workflowId}`,
      }),
    );
    if (got.kind === 'cancelled') return compensate();
    const other = got.kind === 'done' ? otherOwner(got.value as ClaimOutcome) : undefined;
    if (other) return endAsNotOwner(other);
    claimed = true;
  }

  for (const step of def.steps) {
    if (cancelled()) return compensate();
    stack.push(step);
    let outcome;
    try {
      const failures = Object.keys(step.failures ?? {});
      outcome = await runStep(
        step.name,
        step.running ?? step.name,
        () => call(step, step.name, ctxOf(keys[step.name]!)),
        failures,
      );
    } catch (err) {
      // A business failure: this step did nothing; unwind the rest, settle with the outcome.
      stack.pop();
      const ending = businessOutcome(step.failures ?? {}, err);
      compensating = true;
      await unwind();
      await settle(ending);
      return finish(ending.replace(/-/g, '_'), { outcome: ending, reason: describeFailure(err) });
    }
    if (outcome.kind === 'cancelled') return compensate();
    if (step.name === claimStep) {
      // Compared positively: a result without a verdict (recorded before claims existed) is
      // the owner's, so older histories still replay.
      const verdict =
        outcome.kind === 'done'
          ? def.claim!.verdict(outcome.value as never, ctxOf(keys[step.name]!))
          : undefined;
      const other = otherOwner(verdict);
      if (other) {
        stack.pop();
        return endAsNotOwner(other);
      }
      claimed = true;
    }
    if (outcome.kind === 'done') step.done?.(outcome.value as never, status);
  }
  // A cancellation that arrived during the last step still compensates: the signal is in
  // history before completion, so it cannot be lost between the last step and the return.
  if (cancelled()) return compensate();
  // So does one that arrived while the settlement was written (compensation settles again).
  if ((await settle('completed')) && cancelled()) return compensate();
  return finish('completed', { outcome: 'completed' });
}

/** The outcome a business failure names (its ApplicationFailure type in the step's table). */
function businessOutcome(failures: Readonly<Record<string, string>>, err: unknown): string {
  const type =
    (err as { cause?: { type?: string }; type?: string }).cause?.type ??
    (err as { type?: string }).type;
  return failures[type ?? ''] ?? Object.values(failures)[0]!;
}
