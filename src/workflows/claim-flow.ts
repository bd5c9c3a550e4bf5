// The claim's part of a run: the engine's claim before the body (unless a step of the domain
// claims in its own transaction), the verdict of that step, a claim made on cancellation,
// a resolve the claim must confirm, the owner's settlement, and the ending of a run that does
// not own its entity. Workflow code.
import type { ClaimRecord, ClaimVerdict } from '../db/entity-claim';
import type { EventWorkflowInput } from '../events/workflow-input';
import type { SagaDisplay } from './details';
import type { RunResult, RunSpec, StackEntry } from './run-types';
import { endWithoutActing } from './not-owner';
import { NotOwner, RunInterrupted } from './run-errors';
import type { SagaRuntime } from './saga-runtime';
import type { SagaResult, SagaStatus, CancelRequest } from './saga-status';
import type { ClaimOutcome, StepContext } from './saga-types';
import type { SignalDefinition } from '@temporalio/workflow';
import type { RunStep, StepOutcome } from './step-runner';

/** The engine's claim activities (src/activities/claims.ts), for sagas without their own. */
export const ENGINE_CLAIM = {
  claim: 'claimEntity',
  settle: 'settleClaim',
  verify: 'findClaimVerdict',
} as const;

type Other = Exclude<ClaimVerdict<ClaimRecord>, { kind: 'owner' }>;

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
  flags: { compensating: boolean; claimed: boolean };
  stack: StackEntry[];
  channels: { cancel: SignalDefinition<[CancelRequest]> };
  cancelled(): boolean;
  runStep: RunStep;
  ctxOf(key: string, onBehalfOf?: StepContext<TData>['onBehalfOf']): StepContext<TData>;
  finish(step: string, result: SagaResult): RunResult;
}

export function claimFlow<TData, TExtra extends object>(run: ClaimRun<TData, TExtra>) {
  const { spec, runtime, kind, entityId, workflowId, claimant, keys, status, flags } = run;
  const claimStep = spec.claim?.step;
  const engineClaim = (cancelled?: true) =>
    runtime.execute({
      activity: ENGINE_CLAIM.claim,
      input: { domain: spec.domain, entityId, ...claimant, ...(cancelled ? { cancelled } : {}) },
      retry: 'own',
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
    if (!claimStep) return engineClaim();
    const verdict = (await runtime.execute({
      activity: ENGINE_CLAIM.verify,
      input: { domain: spec.domain, entityId, ...claimant },
      retry: 'own',
      local: true,
      summary: `check the claim of ${kind} ${entityId} for ${workflowId}`,
    })) as ClaimVerdict | { kind: 'none' };
    if (verdict.kind === 'none')
      throw new Error(
        `${claimStep} did not claim ${kind} ${entityId} (no claim exists): retry it or cancel`,
      );
    return verdict;
  }

  /** The claiming step's result: another owner, or undefined (this run owns the entity). */
  function verdictOf(outcome: StepOutcome<unknown>): Other | undefined {
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
    // A domain's step claims; a continued run's chain has claimed already.
    if (claimStep || flags.claimed) return;
    if (run.cancelled()) throw new RunInterrupted('cancelled');
    const got = await run.runStep({
      step: 'claim',
      running: 'claiming',
      call: () => engineClaim(),
      verifyResolve,
    });
    if (got.kind === 'cancelled') throw new RunInterrupted('cancelled');
    const other = got.value === undefined ? undefined : otherOwner(got.value as ClaimOutcome);
    if (other) throw new NotOwner(other);
    flags.claimed = true;
  }

  /**
   * Cancelled before this run knew it owned the entity: claims it as cancelled (so a re-send
   * cannot act on a cancelled entity), or learns the owner (returned).
   */
  async function claimCancelled(): Promise<Other | undefined> {
    const own = spec.claim?.cancelled;
    const name = claimStep ?? 'claim';
    const got = await run.runStep({
      step: name,
      running: 'compensating',
      call: () => {
        if (!own) return engineClaim(true);
        const args = own.input(run.ctxOf(keys[name] ?? ''));
        return runtime.execute({
          activity: String(own.activity),
          input: args,
          retry: own.retry,
          local: own.local?.() ?? false,
          summary: own.summary?.(args) ?? `${name} ${kind} ${entityId} · ${keys[name] ?? ''}`,
        });
      },
    });
    const verdict = got.kind === 'done' ? (got.value as ClaimVerdict<ClaimRecord>) : undefined;
    const other = otherOwner(verdict);
    if (other) {
      const i = run.stack.findIndex((e) => e.step === claimStep);
      if (claimStep && i === 0) run.stack.shift();
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
      !run.stack.some((e) => e.step === claimStep)
    ) {
      const lost = spec.compensations((n) => run.ctxOf(keys[n]!)).find((e) => e.step === claimStep);
      if (lost) run.stack.unshift(lost);
    }
    return undefined;
  }

  /**
   * The owner records how the entity ended on its claim: the memory that never expires. A step
   * of the runner's own (no recovery point): our database down waits like a provider outage,
   * for the window, then parks for an operator (a bound, not a retry forever).
   */
  async function settle(settled: string): Promise<boolean> {
    const ctx = run.ctxOf(keys[spec.keyNames[0] ?? ''] ?? '');
    const own = spec.claim?.settle;
    const args = own
      ? own.input(ctx, settled)
      : { domain: spec.domain, entityId, ...claimant, settled };
    const got = await run.runStep({
      step: 'settle',
      running: 'settling',
      unrecorded: true,
      call: () =>
        runtime.execute({
          activity: own ? String(own.activity) : ENGINE_CLAIM.settle,
          input: args,
          retry: 'settle',
          local: true,
          summary:
            own?.summary?.(args) ?? `settle ${kind} ${entityId} as ${settled} for ${workflowId}`,
        }),
    });
    // Cancelled while it waited: the caller compensates and settles again.
    return got.kind !== 'cancelled';
  }

  /** Another run owns the entity: end without acting (or compensate for a closed owner). */
  function endAsNotOwner(
    verdict: Other,
    unwind: (entries?: readonly StackEntry[]) => Promise<void>,
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
        startCompensating: () => (flags.compensating = true),
        compensateFor: async (owner) => {
          await unwind(spec.compensations((n) => run.ctxOf(keys[n]!, owner)));
          // A claim of the engine's own is settled here; a domain that claims in its own step
          // settles the owner's claim inside its compensation's transaction (orders: release).
          if (!spec.claim)
            await runtime.execute({
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
            });
        },
        finish: run.finish,
      },
      verdict,
    );
  }

  return { claimFirst, claimCancelled, verdictOf, verifyResolve, settle, endAsNotOwner };
}
