// A deterministic emulation of what a run meets in Temporal, for unit tests of the engine's
// workflow code without a server: activities with their retry policies and cancellation
// (activities.ts), timers on a virtual clock, signals (kept until a handler is set, as the
// SDK does), updates with validators, Temporal's cancellation, children. Every delivery is
// logged with the commands issued before it (world.ts), so a test can replay a run from its
// log as a worker does after a restart and check that it issues the same commands.
import { CancelledFailure, ChildWorkflowFailure, RetryState } from '@temporalio/common';
import type { InFlight, SagaRuntime } from '../../../src/workflows/saga-runtime';
import { createActivities } from './activities';
import { asApplicationFailure } from './failures';
import type { Answer, Delivery, EmulatorOptions } from './types';
import { START, World } from './world';

export {
  businessError,
  businessFailure,
  deferred,
  inputOf,
  outage,
  permanent,
  turns,
} from './failures';
export type { Answer, AttemptInfo, Command, Delivery, LogEntry } from './types';

export function scriptedRuntime(answer: Answer, options: EmulatorOptions = {}) {
  const timers = new Map<number, () => void>();
  const children = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  /** Children whose end the workflow has seen (a cancel after that asks nothing). */
  const childSeen = new Set<number>();
  const settleChild = (seq: number, ok: boolean, value: unknown) => {
    childSeen.add(seq);
    if (ok) children.get(seq)?.resolve(value);
    else children.get(seq)?.reject(value);
  };
  const handlers = new Map<string, (...args: unknown[]) => void>();
  const buffered = new Map<string, unknown[][]>();
  const validators = new Map<string, (...args: unknown[]) => void>();
  const queries = new Map<string, () => unknown>();
  const steps: Array<string | null> = [];
  let onCancel: (() => void) | undefined;

  const dispatchSignal = (name: string, args: unknown[]) => {
    const handler = handlers.get(name);
    if (handler) handler(...args);
    else buffered.set(name, [...(buffered.get(name) ?? []), args]);
  };
  const applierOf = (d: Delivery): (() => void) => {
    switch (d.type) {
      case 'activity':
        return () => activities.replayed(d.seq, d.ok, d.value);
      case 'timer':
        return () => timers.get(d.seq)?.();
      case 'signal':
        return () => dispatchSignal(d.name, d.args);
      case 'update':
        return () => handlers.get(d.name)?.(...d.args);
      case 'cancel':
        return () => onCancel?.();
      case 'child':
        return () => settleChild(d.seq, d.ok, d.value);
    }
  };
  const world = new World(options, applierOf, (seq) => {
    timers.delete(seq);
    world.issue({ type: 'cancel-timer', seq });
  });
  const activities = createActivities(world, answer, options);

  const condition = (until: () => boolean, timeoutMs?: number) =>
    new Promise<boolean>((done) => {
      if (until()) return done(true);
      const c: (typeof world.conditions)[number] = { until, done };
      if (timeoutMs !== undefined) {
        const seq = ++world.seqs;
        c.timer = seq;
        world.issue({ type: 'timer', seq, ms: timeoutMs });
        timers.set(seq, () => {
          timers.delete(seq);
          world.conditions = world.conditions.filter((x) => x !== c);
          done(false);
        });
        world.at(world.now + timeoutMs, () =>
          world.ready.push({
            delivery: { type: 'timer', seq },
            apply: () => timers.get(seq)?.(),
            live: () => timers.has(seq),
          }),
        );
      }
      world.conditions.push(c);
      void world.pump();
    });

  const executeChild: SagaRuntime['executeChild'] = (call): InFlight => {
    const seq = ++world.seqs;
    world.issue({ type: 'child', seq, workflowId: call.workflowId });
    /** The child's end is decided (`over`), then seen by the workflow (childSeen). */
    let over = false;
    let cancelAsked = false;
    const deliver = (ok: boolean, value: unknown) => {
      if (over) return;
      over = true;
      world.ready.push({
        delivery: { type: 'child', seq, ok, value },
        apply: () => settleChild(seq, ok, value),
      });
      void world.pump();
    };
    const result = new Promise<unknown>((resolve, reject) => {
      children.set(seq, { resolve, reject });
      if (world.replay) return;
      world.external++;
      void Promise.resolve()
        .then(() => (options.child ?? (() => ({})))(call))
        .then(
          (value) => deliver(true, value),
          // As Temporal reports a child's failure to its parent: a ChildWorkflowFailure around it.
          (err: unknown) =>
            deliver(
              false,
              err instanceof ChildWorkflowFailure
                ? err
                : new ChildWorkflowFailure(
                    'default',
                    { workflowId: call.workflowId },
                    call.workflowType,
                    RetryState.RETRY_POLICY_NOT_SET,
                    asApplicationFailure(err),
                  ),
            ),
        )
        .finally(() => world.external--);
    });
    return {
      result,
      cancel: () => {
        if (childSeen.has(seq) || cancelAsked) return;
        cancelAsked = true;
        world.issue({ type: 'cancel-child', seq });
        if (world.replay) return;
        deliver(
          false,
          new ChildWorkflowFailure(
            'default',
            { workflowId: call.workflowId },
            call.workflowType,
            RetryState.NON_RETRYABLE_FAILURE,
            new CancelledFailure('cancelled'),
          ),
        );
      },
    };
  };

  const runtime: SagaRuntime = {
    info: () => ({
      workflowId: options.workflowId ?? 'wf-1',
      runId: 'run-1',
      firstExecutionRunId: 'run-1',
      originalExecutionRunId: 'run-1',
      startTime: new Date(START),
      runStartTime: new Date(START),
      historyLength: world.history,
      historySize: world.historyBytes,
    }),
    startedWith: () => true,
    upsertSearchAttributes: (pairs) => {
      for (const p of pairs)
        if (p.key.name === 'Step') {
          steps.push(p.value as string | null);
          world.issue({ type: 'upsert-step', value: p.value as string | null });
        }
    },
    upsertMemo: () => world.issue({ type: 'memo' }),
    setCurrentDetails: () => undefined,
    condition,
    sleep: (ms) => condition(() => false, ms).then(() => undefined),
    now: () => world.now,
    execute: activities.execute,
    executeChild,
    signal: async () => undefined,
    onSignal: (signal, handler) => {
      handlers.set(signal.name, handler as never);
      const waiting = buffered.get(signal.name) ?? [];
      buffered.delete(signal.name);
      for (const args of waiting) (handler as (...a: unknown[]) => void)(...args);
    },
    onUpdate: (update, handler, validate) => {
      handlers.set(update.name, handler as never);
      validators.set(update.name, validate as never);
    },
    onQuery: (query, handler) => void queries.set(query.name, handler as never),
    onCancelRequested: (handler) => {
      onCancel = handler;
    },
    continueAsNew: (input) => Promise.reject(new ContinuedAsNew(input)),
    shielded: (fn) => fn(),
  };

  const send = (delivery: Delivery, apply: () => void) => {
    world.ready.push({ delivery, apply });
    void world.pump();
  };
  return {
    runtime,
    /** Every activity scheduled, every attempt made, every command, every delivery. */
    calls: activities.calls,
    attempts: activities.attempts,
    commands: world.allCommands,
    log: world.log,
    /** Step values upserted, in order (null: cleared). */
    steps,
    /** The activities scheduled, in order. */
    names: () => activities.calls.map((c) => c.activity),
    now: () => world.now,
    history: () => world.history,
    /** Bytes of history as the emulator counts them (events' overhead and payloads). */
    historySize: () => world.historyBytes,
    idle: () => world.whenIdle(),
    /**
     * A signal already in history when the run's first workflow task runs: the SDK keeps it
     * until the code sets its handler. (Not in the log: a replay sends it the same way.)
     */
    signalBeforeStart: (name: string, ...args: unknown[]) => dispatchSignal(name, args),
    signal: (name: string, ...args: unknown[]) =>
      send({ type: 'signal', name, args }, () => dispatchSignal(name, args)),
    /** An update: rejected at once (throws) by its validator, else delivered. */
    update: (name: string, ...args: unknown[]) => {
      validators.get(name)?.(...args);
      send({ type: 'update', name, args }, () => handlers.get(name)?.(...args));
    },
    cancel: () => send({ type: 'cancel' }, () => onCancel?.()),
    /** Something happens at a virtual time (a property test's injection). */
    at: (when: number, fire: () => void) => world.at(when, fire),
    /** What a query handler answers now. */
    query: <T>(name: string) => queries.get(name)!() as T,
  };
}

export type Scripted = ReturnType<typeof scriptedRuntime>;

/** How an emulated run ends when it continues as new: the next run's input. */
export class ContinuedAsNew extends Error {
  constructor(readonly input: unknown) {
    super('continued as new');
  }
}
