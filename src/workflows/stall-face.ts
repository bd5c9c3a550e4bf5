// What a run shows while its calls wait or park: the status query's `waiting` / `parked`, the
// Step search attribute (parked wins over waiting), and the memo `attention` and `waited`,
// which the server returns with describe() even while no worker runs. One writer for all of
// it, called by the call's rounds (call-rounds.ts) at each change. Workflow code.
import type { SagaDisplay } from './details';
import { parkedActionOf, waitingActionOf } from './details';
import type { CallRecord, RunState } from './run-state';
import { visibleStep } from './run-state';
import type { SagaRuntime } from './saga-runtime';
import {
  ATTENTION_MEMO,
  WAITED_MEMO,
  type Attention,
  type SagaStatus,
  type WaitedMemo,
} from './saga-status';

export interface StallFaceContext {
  runtime: SagaRuntime;
  display: SagaDisplay;
  status: SagaStatus;
  state: RunState;
  /** Sets status.step and the Step attribute (queried values only). */
  setStep(step: string): void;
}

export function createStallFace(ctx: StallFaceContext) {
  const { runtime, display, status, state } = ctx;
  const iso = (ms: number) => new Date(ms).toISOString();
  /** Each stalled call's attention, by call; the memo shows the latest. */
  const attentions = new Map<string, Attention>();
  let attentionSet = false;
  const waited: WaitedMemo = { totalMs: 0, maxMs: 0 };

  /**
   * One memo upsert: the call's new attention (or its removal, only if one was set, so a run
   * that never waited records no memo command) and, when a wait ends, the waited totals.
   */
  function updateMemo(id: string, attention: Attention | undefined, endedWaitMs?: number) {
    if (attention) attentions.set(id, attention);
    else attentions.delete(id);
    const shown = attention ?? [...attentions.values()].pop();
    const memo: Record<string, unknown> = {};
    if (shown || attentionSet) memo[ATTENTION_MEMO] = shown;
    if (endedWaitMs !== undefined) {
      waited.totalMs += endedWaitMs;
      waited.maxMs = Math.max(waited.maxMs, endedWaitMs);
      memo[WAITED_MEMO] = { ...waited };
    }
    attentionSet = shown !== undefined;
    if (Object.keys(memo).length > 0) runtime.upsertMemo(memo);
  }

  /** The call waits out a transient cause until `untilMs` at most. */
  function waiting(call: CallRecord, running: string) {
    const { cause, sinceMs, untilMs } = call.stall!;
    status.waiting = { step: call.id, cause, since: iso(sinceMs), until: iso(untilMs!) };
    ctx.setStep(visibleStep(state, running));
    updateMemo(call.id, {
      state: 'waiting',
      ...status.waiting,
      action: waitingActionOf(display, status, call.id, status.waiting.until),
    });
  }

  /** The call parked: an operator decides. */
  function parked(call: CallRecord, running: string, endedWaitMs?: number) {
    const { cause, sinceMs } = call.stall!;
    if (status.waiting?.step === call.id) status.waiting = undefined;
    status.parked = { step: call.id, error: cause, since: iso(sinceMs) };
    ctx.setStep(visibleStep(state, running));
    updateMemo(
      call.id,
      {
        state: 'parked',
        step: call.id,
        cause,
        since: status.parked.since,
        episodes: call.episodes,
        action: parkedActionOf(display, status, call.id),
      },
      endedWaitMs,
    );
  }

  /** The call stalls no more (it answered, an operator acted, or the run stopped it). */
  function cleared(call: CallRecord, running: string, endedWaitMs?: number) {
    if (status.waiting?.step === call.id) status.waiting = undefined;
    if (status.parked?.step === call.id) status.parked = undefined;
    // Another stalled call's stall shows again.
    for (const other of state.calls.values()) {
      if (other.id === call.id || !other.stall) continue;
      if (other.state === 'waiting' && !status.waiting)
        status.waiting = {
          step: other.id,
          cause: other.stall.cause,
          since: iso(other.stall.sinceMs),
          until: iso(other.stall.untilMs!),
        };
      if (other.state === 'parked' && !status.parked)
        status.parked = {
          step: other.id,
          error: other.stall.cause,
          since: iso(other.stall.sinceMs),
        };
    }
    ctx.setStep(visibleStep(state, running));
    if (attentions.has(call.id) || endedWaitMs !== undefined)
      updateMemo(call.id, undefined, endedWaitMs);
  }

  return { waiting, parked, cleared };
}

export type StallFace = ReturnType<typeof createStallFace>;
