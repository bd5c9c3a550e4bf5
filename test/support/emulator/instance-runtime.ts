// The SagaRuntime the workflow code runs on in the emulator: each call issues the command the
// SDK would (instance.ts keeps them), with the SDK's cancellation semantics: a command
// cancelled before its task completed is dropped with its cancel (nothing reaches history);
// an activity's cancellation type decides whether its promise waits for the attempt in
// flight (WAIT_CANCELLATION_COMPLETED, the engine's), rejects at once (TRY_CANCEL) or
// abandons it (ABANDON); a child likewise (WAIT_CANCELLATION_COMPLETED by default);
// Temporal's cancel of the run reaches what is awaited outside `shielded`.
import {
  ActivityCancellationType,
  ActivityFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  RetryState,
} from '@temporalio/common';
import { activityOptionsOf } from '../../../src/workflows/retry-classes';
import type { InFlight, SagaRuntime } from '../../../src/workflows/saga-runtime';
import type { RunIds } from './execution';
import { deferred } from './failures';
import { Instance, type Waiting } from './instance';
import { attributeBytes, LIMITS, payloadBytes, summaryBytes } from './limits';
import type { Command } from './types';

/** What the runtime needs of its run (the emulator's execution and options). */
export interface RuntimeHost {
  ids(): RunIds;
  /** A local activity's cancel: no attempt starts after it (the one in flight finishes). */
  cancelLocal(seq: number): void;
  /** Every Step value upserted, in order (null: cleared). */
  steps: Array<string | null>;
}

/** The activity's cancelled failure, as the SDK builds it. */
function cancelledActivity(activity: string, seq: number): ActivityFailure {
  return new ActivityFailure(
    'Activity cancelled',
    activity,
    String(seq),
    RetryState.CANCEL_REQUESTED,
    undefined,
    new CancelledFailure('cancelled'),
  );
}

export function instanceRuntime(
  inst: Instance,
  host: RuntimeHost,
): SagaRuntime & {
  continueAsNew(input: unknown): Promise<never>;
} {
  const wait = (key: string, w: Omit<Waiting, 'rootScoped'>): Waiting => {
    const entry = { ...w, rootScoped: Instance.rootScoped() };
    inst.waiting.set(key, entry);
    return entry;
  };
  const promised = () => deferred<unknown>();
  /** Ends a waiting entry now (a cancellation reported at once). */
  const endNow = (key: string, err: unknown) => {
    const w = inst.waiting.get(key);
    if (!w || w.done) return;
    w.done = true;
    inst.waiting.delete(key);
    w.reject(err);
  };

  const timer = (ms: number, summary?: string): { seq: number; fired: Promise<unknown> } => {
    const seq = ++inst.seqs.timer;
    inst.issue({ type: 'timer', seq, ms, bytes: summaryBytes(summary) });
    const p = promised();
    wait(Instance.key('t', seq), {
      ...p,
      cancel: () => {
        inst.cancelTimer(seq);
        p.reject(new CancelledFailure('Timer cancelled'));
      },
    });
    return { seq, fired: p.promise };
  };

  const condition: SagaRuntime['condition'] = (until, timeoutMs, summary) =>
    new Promise<boolean>((done, reject) => {
      if (until()) return done(true);
      const c = { until, done, reject, rootScoped: Instance.rootScoped() } as Parameters<
        typeof inst.conditions.push
      >[0];
      if (timeoutMs !== undefined) {
        const t = timer(timeoutMs, summary);
        c.timer = t.seq;
        t.fired.then(
          () => {
            inst.conditions = inst.conditions.filter((x) => x !== c);
            done(false);
          },
          (err: unknown) => {
            inst.conditions = inst.conditions.filter((x) => x !== c);
            reject(err);
          },
        );
      }
      inst.conditions.push(c);
    });

  const execute: SagaRuntime['execute'] = (call): InFlight => {
    const seq = ++inst.seqs.activity;
    const local = call.local && call.round === undefined;
    const key = Instance.key('a', seq);
    if (local) inst.locals.set(seq, call);
    inst.issue({
      type: 'activity',
      seq,
      activity: call.activity,
      key: (call.input as { key?: string } | undefined)?.key,
      local,
      round: call.round !== undefined,
      call,
      bytes: payloadBytes(call.input) + summaryBytes(call.summary),
      blob: payloadBytes(call.input),
    });
    const p = promised();
    const type =
      (call as { cancellationType?: string }).cancellationType ??
      activityOptionsOf(call.retry, call).cancellationType ??
      ActivityCancellationType.TRY_CANCEL;
    let asked = false;
    const cancel = () => {
      const w = inst.waiting.get(key);
      if (!w || w.done || asked) return;
      asked = true;
      const failure = cancelledActivity(call.activity, seq);
      if (local) {
        if (inst.dropUnsent((c) => c.type === 'activity' && c.seq === seq)) endNow(key, failure);
        host.cancelLocal(seq);
        if (type !== ActivityCancellationType.WAIT_CANCELLATION_COMPLETED) endNow(key, failure);
        return;
      }
      if (inst.dropUnsent((c) => c.type === 'activity' && c.seq === seq))
        return endNow(key, failure);
      if (type !== ActivityCancellationType.ABANDON) inst.issue({ type: 'cancel-activity', seq });
      if (type !== ActivityCancellationType.WAIT_CANCELLATION_COMPLETED) endNow(key, failure);
    };
    wait(key, { ...p, cancel });
    return { result: p.promise, cancel };
  };

  const executeChild: SagaRuntime['executeChild'] = (call): InFlight => {
    const seq = ++inst.seqs.child;
    const key = Instance.key('c', seq);
    inst.issue({
      type: 'child',
      seq,
      workflowId: call.workflowId,
      workflowType: call.workflowType,
      call,
      bytes: payloadBytes(call.input) + summaryBytes(call.summary),
      blob: payloadBytes(call.input),
    });
    const p = promised();
    const type =
      (call as { cancellationType?: string }).cancellationType ?? 'WAIT_CANCELLATION_COMPLETED';
    let asked = false;
    const cancel = () => {
      const w = inst.waiting.get(key);
      if (!w || w.done || asked) return;
      asked = true;
      const failure = new ChildWorkflowFailure(
        'default',
        { workflowId: call.workflowId },
        call.workflowType,
        RetryState.NON_RETRYABLE_FAILURE,
        new CancelledFailure('cancelled'),
      );
      if (inst.dropUnsent((c) => c.type === 'child' && c.seq === seq)) return endNow(key, failure);
      if (type !== 'ABANDON') inst.issue({ type: 'cancel-child', seq });
      if (type === 'WAIT_CANCELLATION_REQUESTED') w.onCancelRequested = () => endNow(key, failure);
      else if (type !== 'WAIT_CANCELLATION_COMPLETED') endNow(key, failure);
    };
    wait(key, { ...p, cancel });
    return { result: p.promise, cancel };
  };

  const upsert = (c: Command) => inst.issue(c);
  return {
    info: () => ({
      ...host.ids(),
      historyLength: inst.historyLength,
      historySize: inst.historySize,
      // The server's suggestion (limit.historyCount/historySize.suggestContinueAsNew).
      continueAsNewSuggested:
        inst.historyLength >= LIMITS.suggestContinueAsNewEvents ||
        inst.historySize >= LIMITS.suggestContinueAsNewBytes,
    }),
    startedWith: () => true,
    upsertSearchAttributes: (pairs) => {
      const step = pairs.find((p) => p.key.name === 'Step');
      if (step) host.steps.push(step.value as string | null);
      upsert({
        type: 'upsert',
        ...(step ? { step: step.value as string | null } : {}),
        bytes: pairs.reduce((n, p) => n + attributeBytes(p.key.name, p.value), 0),
      });
    },
    upsertMemo: (memo) =>
      upsert({
        type: 'memo',
        bytes: Object.entries(memo).reduce((n, [k, v]) => n + k.length + payloadBytes(v), 0),
        blob: Math.max(0, ...Object.values(memo).map(payloadBytes)),
      }),
    setCurrentDetails: () => undefined,
    condition,
    sleep: async (ms) => {
      await timer(ms).fired;
    },
    now: () => inst.now,
    execute,
    executeChild,
    signal: (workflowId, signal, request) => {
      const seq = ++inst.seqs.signal;
      inst.issue({
        type: 'signal-external',
        seq,
        workflowId,
        name: signal.name,
        bytes: payloadBytes(request) + signal.name.length,
        blob: payloadBytes(request),
      });
      const p = promised();
      wait(Instance.key('s', seq), p);
      return p.promise.then(() => undefined);
    },
    onSignal: (signal, handler) => {
      inst.handlers.set(signal.name, handler as never);
      const waiting = inst.buffered.get(signal.name) ?? [];
      inst.buffered.delete(signal.name);
      for (const args of waiting) (handler as (...a: unknown[]) => void)(...args);
    },
    onUpdate: (update, handler, validate) => {
      inst.updateNames.add(update.name);
      inst.handlers.set(update.name, handler as never);
      inst.validators.set(update.name, validate as never);
      // Updates that arrived before the handler, in this activation, run now (as the SDK does).
      const early = inst.pendingUpdates.filter((u) => u.name === update.name);
      inst.pendingUpdates = inst.pendingUpdates.filter((u) => u.name !== update.name);
      for (const u of early) inst.runUpdate(u);
    },
    onQuery: (query, handler) => void inst.queries.set(query.name, handler as never),
    // The root scope's cancelRequested promise: a handler set after the cancel still hears it.
    onCancelRequested: (handler) => {
      if (inst.cancelRequested) void Promise.resolve().then(handler);
      else inst.onCancel.push(handler);
    },
    shielded: (fn) => Instance.shielded(fn),
    continueAsNew: (input) => {
      inst.issue({
        type: 'continue-as-new',
        input,
        bytes: payloadBytes(input),
        blob: payloadBytes(input),
      });
      inst.closing = true;
      return new Promise<never>(() => undefined);
    },
  };
}
