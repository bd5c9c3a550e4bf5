// The claim's part of a run: the engine's claim before the body (unless a step of the domain
// claims in its own transaction), the verdict of that step, a claim made on cancellation,
// a resolve the claim must confirm, the owner's settlement, and the ending of a run that does
// not own its entity. Workflow code.
import type { ClaimRecord, ClaimVerdict } from '../db/entity-claim';
import type { EventWorkflowInput } from '../events/workflow-input';
import { runCall, type CallOutcome, type RoundsContext } from './call-rounds';
import type { SagaDisplay } from './details';
import type { RunResult, RunSpec, StackEntry } from './run-types';
import { endWithoutActing } from './not-owner';
import { NotOwner, RunInterrupted } from './run-errors';
import { learnOtherOwner, openCall, type RunState } from './run-state';
import type { SagaRuntime } from './saga-runtime';
import type { SagaResult, SagaStatus, CancelRequest } from './saga-status';
import type { ClaimOutcome, StepContext } from './saga-types';
import type { SignalDefinition } from '@temporalio/workflow';

/** The engine's claim activities (src/activities/claims.ts), for sagas without their own. */
export const ENGINE_CLAIM = {
  claim: 'claimEntity',
  settle: 'settleClaim',
  verify: 'findClaimVerdict',
} as const;

/** A verdict that says another run owns the entity. */
export type Other = Exclude<ClaimVerdict<ClaimRecord>, { kind: 'owner' }>;

/** The call a run that compensated for a closed owner makes: settle the owner's claim. */
export const SETTLE_OWNER_CALL = 'settle-owner';

/** The call a run cancelled before its claim makes: claim the entity as cancelled. */
export const CLAIM_CANCELLED_CALL = 'claim-cancelled';

/** What the claim flow needs of its run (entity-run.ts). */
export interface ClaimRun<TData, TExtra extends object> {
  spec: RunSpec<TData, TExtra>;
  input: EventWorkflowInput<TData>;
  runtime: SagaRuntime;
  kind: string;
  entityId: string;
  workflowId: string;
  claimant: StepContext<TData>['claimant'];
  keys: Readonly<Record<string, string>>;
  status: SagaStatus;
  display: SagaDisplay;
  state: RunState;
  rounds: RoundsContext;
  channels: { cancel: SignalDefinition<[CancelRequest]> };
  ctxOf(key: string, onBehalfOf?: StepContext<TData>['onBehalfOf']): StepContext<TData>;
  /** Runs these undos in order, each a call of its own. */
  unwind(entries: readonly StackEntry[]): Promise<void>;
}

export function claimFlow<TData, TExtra extends object>(run: ClaimRun<TData, TExtra>) {
  const { spec, runtime, kind, entityId, workflowId, claimant, keys, status, state } = run;
  const claimStep = spec.claim?.step;
  const engineClaimCall = (cancelled?: true) => ({
    activity: ENGINE_CLAIM.claim,
    input: { domain: spec.domain, entityId, ...claimant, ...(cancelled ? { cancelled } : {}) },
    retry: 'own' as const,
    local: true,
    summary: `claim ${cancelled ? 'cancelled ' : ''}${kind} ${entityId} for ${workflowId}`,
  });

  /** A verdict that says another run owns the entity, or undefined (this run does). */
  const otherOwner = (verdict: ClaimOutcome | undefined): Other | undefined => {
    if (verdict?.kind === 'owner' && verdict.reopened) status.reopened = verdict.reopened;
    return verdict && verdict.kind !== 'owner' ? (verdict as Other) : undefined;
  };

  /**
   * An operator resolved the claiming step: the claim must say this run owns the entity (or
   * who does). The engine's claim simply claims again; a domain's claiming step is checked
   * against the claim it should have written, and refused when there is none.
   */
  async function verifyResolve(): Promise<unknown> {
    if (!claimStep) return runtime.execute(engineClaimCall()).result;
    const verdict = (await runtime.execute({
      activity: ENGINE_CLAIM.verify,
      input: { domain: spec.domain, entityId, ...claimant },
      retry: 'own',
      local: true,
      summary: `check the claim of ${kind} ${entityId} for ${workflowId}`,
    }).result) as ClaimVerdict | { kind: 'none' };
    if (verdict.kind === 'none')
      throw new Error(
        `${claimStep} did not claim ${kind} ${entityId} (no claim exists): retry it or cancel`,
      );
    return verdict;
  }

  /** The claiming step's result: another owner, or undefined (this run owns the entity). */
  function verdictOf(outcome: CallOutcome): Other | undefined {
    if (outcome.kind === 'resolved')
      return outcome.value === undefined ? undefined : otherOwner(outcome.value as ClaimOutcome);
    // Compared positively: a result without a verdict (recorded before claims existed) is
    // the owner's, so older histories still replay.
    return outcome.kind === 'done'
      ? otherOwner(spec.claim!.verdict(outcome.value as never, run.ctxOf(keys[claimStep!]!)))
      : undefined;
  }

  /** The engine's claim: one local activity before the body, unless a step claims. */
  async function claimFirst(): Promise<void> {
    // A domain's step claims, or the chain claimed before a checkpoint.
    if (claimStep || state.claimed) return;
    if (state.cancelRequested) throw new RunInterrupted('cancelled');
    const record = openCall(state, { name: 'claim', kind: 'claim', key: '' });
    const got = await runCall(run.rounds, record, {
      call: engineClaimCall(),
      running: 'claiming',
      verifyResolve,
    });
    if (got.kind === 'stopped') throw new RunInterrupted('cancelled');
    const other = got.value === undefined ? undefined : otherOwner(got.value as ClaimOutcome);
    if (other) {
      learnOtherOwner(state, other);
      throw new NotOwner(other);
    }
    state.claimed = true;
  }

  /**
   * Cancelled before this run knew it owned the entity: claims it as cancelled (so a re-send
   * cannot act on a cancelled entity), or learns the owner (returned). A call of the unwind:
   * it waits and parks like an undo, and no cancellation stops it.
   */
  async function claimCancelled(): Promise<Other | undefined> {
    const own = spec.claim?.cancelled;
    const name = claimStep ?? 'claim';
    const record = openCall(state, {
      name: CLAIM_CANCELLED_CALL,
      kind: 'compensation',
      key: keys[name] ?? '',
    });
    const args = own ? own.input(run.ctxOf(keys[name] ?? '')) : undefined;
    const got = await runCall(run.rounds, record, {
      call: own
        ? {
            activity: String(own.activity),
            input: args,
            retry: own.retry,
            local: own.local?.() ?? false,
            summary: own.summary?.(args) ?? `${name} ${kind} ${entityId} · ${keys[name] ?? ''}`,
          }
        : engineClaimCall(true),
      running: 'compensating',
    });
    const verdict = got.kind === 'done' ? (got.value as ClaimVerdict<ClaimRecord>) : undefined;
    const other = otherOwner(verdict);
    const claiming = claimStep ? state.calls.get(claimStep) : undefined;
    if (other) {
      // Another run owns it: this run's claiming step did nothing of its own.
      if (claiming) claiming.compensation = undefined;
      return other;
    }
    // Ours already, and not as cancelled just now: this run's claiming step committed its
    // effect with the claim (a reservation) but its result never reached history (a local
    // activity whose workflow task timed out, a worker killed after the commit). Undo it.
    if (
      claimStep &&
      verdict?.kind === 'owner' &&
      verdict.claim !== undefined &&
      verdict.claim.settled === undefined &&
      !claiming?.compensation
    ) {
      const lost = spec.compensations((n) => run.ctxOf(keys[n]!)).find((e) => e.step === claimStep);
      if (lost) {
        const record =
          claiming ??
          openCall(state, { name: claimStep, kind: 'step', key: keys[claimStep] ?? '' });
        record.state = record.state === 'running' ? 'stopped' : record.state;
        record.compensation = lost;
        record.compensated = false;
      }
    }
    return undefined;
  }

  /**
   * The owner records how the entity ended on its claim: the memory that never expires. A call
   * of its own (no recovery point): our database down waits like a provider outage, for the
   * window, then parks for an operator (a bound, not a retry forever). A cancellation stops
   * the settlement of `completed` (the run then unwinds and settles `cancelled`).
   */
  async function settle(settled: string): Promise<CallOutcome> {
    const ctx = run.ctxOf(keys[spec.keyNames[0] ?? ''] ?? '');
    const own = spec.claim?.settle;
    const args = own
      ? own.input(ctx, settled)
      : { domain: spec.domain, entityId, ...claimant, settled };
    const record = openCall(state, { name: 'settle', kind: 'settle', key: '' });
    return runCall(run.rounds, record, {
      running: 'settling',
      unrecorded: true,
      call: {
        activity: own ? String(own.activity) : ENGINE_CLAIM.settle,
        input: args,
        retry: 'settle',
        local: true,
        summary:
          own?.summary?.(args) ?? `settle ${kind} ${entityId} as ${settled} for ${workflowId}`,
      },
    });
  }

  /** Another run owns the entity: end without acting (or compensate for a closed owner). */
  function endAsNotOwner(
    verdict: Other,
    finish: (result: { step: string; result: SagaResult }) => RunResult,
  ): Promise<RunResult> {
    return endWithoutActing(
      {
        runtime,
        status,
        display: run.display,
        workflowId,
        entityId,
        fingerprint: run.input.event.fingerprint,
        cancel: run.channels.cancel,
        compensateFor: async (owner) => {
          await run.unwind(spec.compensations((n) => run.ctxOf(keys[n]!, owner)));
          // A claim of the engine's own is settled here; a domain that claims in its own step
          // settles the owner's claim inside its compensation's transaction (orders: release).
          // A call of the unwind like any undo: our database down waits, then parks.
          if (!spec.claim) {
            const record = openCall(state, {
              name: SETTLE_OWNER_CALL,
              kind: 'compensation',
              key: '',
            });
            await runCall(run.rounds, record, {
              running: 'settling',
              unrecorded: true,
              call: {
                activity: ENGINE_CLAIM.settle,
                input: {
                  domain: spec.domain,
                  entityId,
                  ...owner,
                  fingerprint: verdict.claim.fingerprint,
                  settled: 'unwound',
                },
                retry: 'settle',
                local: true,
                summary: `settle ${kind} ${entityId} as unwound for ${owner.workflowId}`,
              },
            });
          }
        },
        finish: (step, result) => finish({ step, result }),
      },
      verdict,
    );
  }

  return { claimFirst, claimCancelled, verdictOf, verifyResolve, settle, endAsNotOwner };
}
