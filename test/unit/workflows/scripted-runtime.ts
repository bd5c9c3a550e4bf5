// A deterministic emulation of what a run meets in Temporal, for unit tests of the engine's
// workflow code without a server: activities with their retry policies (the fast round's few
// attempts, a waiting round's attempts every interval until its schedule-to-close deadline, a
// cancel that stops further attempts while an attempt in flight finishes first), timers on a
// virtual clock, signals (buffered until a handler is set), updates with validators, Temporal's
// cancellation, children. Every workflow-visible delivery is logged with the commands the code
// issued before it, so `replay()` can run the same workflow again from that log, as a worker
// does after a restart, and check that it issues the same commands (Temporal's determinism).
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import type {
  ActivityCall,
  ChildCall,
  InFlight,
  SagaRuntime,
} from '../../../src/workflows/saga-runtime';
import { activityOptionsOf } from '../../../src/workflows/retry-classes';
import type { EventWorkflowInput } from '../../../src/events/workflow-input';

/** One attempt of an activity, as its answer function sees it. */
export interface AttemptInfo {
  /** 1 for the first attempt of this scheduled activity. */
  attempt: number;
  /** The attempt belongs to a waiting round. */
  round: boolean;
  /** Virtual time (ms). */
  now: number;
}

export type Answer = (call: ActivityCall, info: AttemptInfo) => unknown;

/** A command the workflow code issued, as history would hold it. */
export type Command =
  | {
      type: 'activity';
      seq: number;
      activity: string;
      key?: string;
      local: boolean;
      round: boolean;
    }
  | { type: 'cancel-activity'; seq: number }
  | { type: 'timer'; seq: number; ms: number }
  | { type: 'cancel-timer'; seq: number }
  | { type: 'child'; seq: number; workflowId: string }
  | { type: 'cancel-child'; seq: number }
  | { type: 'upsert-step'; value: string | null }
  | { type: 'memo' };

/** A delivery the workflow code saw. */
export type Delivery =
  | { type: 'activity'; seq: number; ok: boolean; value: unknown }
  | { type: 'timer'; seq: number }
  | { type: 'signal'; name: string; args: unknown[] }
  | { type: 'update'; name: string; args: unknown[] }
  | { type: 'cancel' }
  | { type: 'child'; seq: number; ok: boolean; value: unknown };

/** The log a replay follows: each delivery, its time, and the commands issued before it. */
export interface LogEntry {
  commands: Command[];
  delivery: Delivery;
  at: number;
}

export interface EmulatorOptions {
  /** Idle turns of the event loop before virtual time moves on (a test's chance to act). */
  idleTurns?: number;
  /** Picks among deliveries ready at the same moment (property tests); default: in order. */
  rng?: () => number;
  /** How long one attempt takes (virtual ms). Default 0. */
  attemptMs?: (call: ActivityCall) => number;
  /** Answers a child workflow. Default: completes with `{}`. */
  child?: (call: ChildCall) => unknown;
  /**
   * Replays this log instead of running live (a worker's replay after a restart): deliveries
   * and times come from it, the commands issued are checked against it (a difference throws,
   * as Temporal's nondeterminism check does); it ends where the log ends.
   */
  replay?: readonly LogEntry[];
}

/** A business failure as a regular activity's failure arrives in workflow code. */
export function businessFailure(activity: string, type: string): ActivityFailure {
  return new ActivityFailure(
    `${activity} failed`,
    activity,
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    undefined,
    ApplicationFailure.create({ type, message: `${type} in ${activity}`, nonRetryable: true }),
  );
}

/** What an activity throws for a business failure (the emulator wraps it as Temporal does). */
export function businessError(type: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message: `${type}`, nonRetryable: true });
}

/** What an activity throws for a provider outage: transient, with the worker's window. */
export function outage(windowMs = 3_600_000, intervalMs = 30_000): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'ProviderUnavailableError',
    message: 'answered 503',
    details: [{ transient: true, windowMs, intervalMs, endpoint: 'POST /x', key: 'k' }],
  });
}

/** What an activity throws for a cause nobody can wait out (a 422). */
export function permanent(message = 'answered 422'): ApplicationFailure {
  return ApplicationFailure.create({ type: 'ProviderRejectedError', message, nonRetryable: true });
}

/** An event input for a scripted run. */
export function inputOf<T>(data: T, aggregateId = 'e-1'): EventWorkflowInput<T> {
  return {
    data,
    event: {
      eventId: 'evt-1',
      eventType: 'Test',
      identity: 'evt-1',
      aggregateId,
      fingerprint: 'f'.repeat(64),
      source: { topic: 't', partition: 0, offset: '0' },
    },
  };
}

interface Pending {
  seq: number;
  call: ActivityCall;
  attempt: number;
  inAttempt: boolean;
  cancelRequested: boolean;
  settled: boolean;
  deadline?: number;
  maxAttempts: number;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

const START = Date.parse('2026-11-27T12:00:00Z');

/** Temporal's failure of an attempt as the workflow sees it: an ApplicationFailure. */
function asApplicationFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  // A test that hands over the failure as the workflow sees it: its cause is what was thrown.
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) return err.cause;
  const e = err instanceof Error ? err : new Error(String(err));
  return ApplicationFailure.create({ type: e.name, message: e.message });
}

export function scriptedRuntime(answer: Answer, options: EmulatorOptions = {}) {
  const idleTurns = options.idleTurns ?? 50;
  let now = START;
  let seqs = 0;
  let history = 3;
  /** Commands since the last delivery, and the log of deliveries. */
  let commands: Command[] = [];
  const log: LogEntry[] = [];
  const allCommands: Command[] = [];
  const replay = options.replay ? [...options.replay] : undefined;
  /** Every activity scheduled, and every attempt made. */
  const calls: ActivityCall[] = [];
  const attempts: Array<{ call: ActivityCall; attempt: number; at: number; round: boolean }> = [];
  const steps: Array<string | null> = [];
  /** Deliveries ready now, in the order they became ready. */
  const ready: Array<{ delivery: Delivery; apply(): void }> = [];
  /** Things due at a virtual time: timers, retries, attempt ends. */
  const agenda: Array<{ at: number; n: number; fire(): void }> = [];
  const pending = new Map<number, Pending>();
  const timers = new Map<number, (fired: boolean) => void>();
  const children = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  let conditions: Array<{ until: () => boolean; done(ok: boolean): void; timer?: number }> = [];
  const handlers = new Map<string, (...args: unknown[]) => void>();
  const buffered = new Map<string, unknown[][]>();
  const validators = new Map<string, (...args: unknown[]) => void>();
  const queries = new Map<string, () => unknown>();
  let onCancel: (() => void) | undefined;
  let external = 0;
  let idle = 0;
  let agendaN = 0;

  const issue = (c: Command) => {
    commands.push(c);
    allCommands.push(c);
    history += 1;
  };
  const at = (when: number, fire: () => void) => agenda.push({ at: when, n: agendaN++, fire });

  /** Delivers one workflow-visible event, and logs it with the commands before it. */
  function deliver(d: Delivery, apply: () => void) {
    if (replay) {
      const expected = replay.shift()!;
      checkCommands(expected.commands, commands);
      now = expected.at;
    }
    log.push({ commands, delivery: d, at: now });
    commands = [];
    history += d.type === 'activity' ? 2 : 1;
    history += 3; // the workflow task that delivers it
    apply();
  }

  function checkCommands(expected: Command[], got: Command[]) {
    const a = JSON.stringify(expected);
    const b = JSON.stringify(got);
    if (a !== b) throw new Error(`nondeterminism on replay:\n expected ${a}\n got      ${b}`);
  }

  /** How a logged delivery is applied again (replay). */
  function applierOf(d: Delivery): () => void {
    switch (d.type) {
      case 'activity': {
        const p = pending.get(d.seq);
        return () => {
          if (!p) throw new Error(`replay: no activity ${d.seq}`);
          p.settled = true;
          if (d.ok) p.resolve(d.value);
          else p.reject(d.value);
        };
      }
      case 'timer':
        return () => timers.get(d.seq)?.(true);
      case 'signal':
        return () => dispatchSignal(d.name, d.args);
      case 'update':
        return () => handlers.get(d.name)?.(...d.args);
      case 'cancel':
        return () => onCancel?.();
      case 'child': {
        const c = children.get(d.seq);
        return () => (d.ok ? c?.resolve(d.value) : c?.reject(d.value));
      }
    }
  }

  function dispatchSignal(name: string, args: unknown[]) {
    const handler = handlers.get(name);
    if (handler) handler(...args);
    else buffered.set(name, [...(buffered.get(name) ?? []), args]);
  }

  function settle(p: Pending, ok: boolean, value: unknown) {
    if (p.settled) return;
    p.settled = true;
    const d: Delivery = { type: 'activity', seq: p.seq, ok, value };
    ready.push({ delivery: d, apply: () => (ok ? p.resolve(value) : p.reject(value)) });
  }

  const failure = (p: Pending, state: RetryState, cause: Error) =>
    new ActivityFailure('activity failed', p.call.activity, String(p.seq), state, undefined, cause);

  function startAttempt(p: Pending) {
    if (p.settled) return;
    if (p.cancelRequested) {
      settle(p, false, failure(p, RetryState.CANCEL_REQUESTED, new CancelledFailure('cancelled')));
      return;
    }
    p.attempt++;
    p.inAttempt = true;
    attempts.push({ call: p.call, attempt: p.attempt, at: now, round: !!p.call.round });
    const started = now;
    external++;
    void Promise.resolve()
      .then(() => answer(p.call, { attempt: p.attempt, round: !!p.call.round, now: started }))
      .then(
        (value) => ({ ok: true as const, value }),
        (err: unknown) => ({ ok: false as const, err }),
      )
      .then((r) => {
        external--;
        const end = () => endAttempt(p, r);
        const ms = options.attemptMs?.(p.call) ?? 0;
        if (ms > 0) at(started + ms, end);
        else end();
        void pump();
      });
  }

  function endAttempt(p: Pending, r: { ok: true; value: unknown } | { ok: false; err: unknown }) {
    p.inAttempt = false;
    if (r.ok) return settle(p, true, r.value);
    const cause = asApplicationFailure(r.err);
    const policy = activityOptionsOf(p.call.retry, p.call).retry!;
    const nonRetryable =
      cause.nonRetryable || (policy.nonRetryableErrorTypes ?? []).includes(cause.type ?? '');
    if (nonRetryable) return settle(p, false, failure(p, RetryState.NON_RETRYABLE_FAILURE, cause));
    if (p.cancelRequested)
      return settle(
        p,
        false,
        failure(p, RetryState.CANCEL_REQUESTED, new CancelledFailure('cancelled')),
      );
    if (!p.call.round && p.attempt >= p.maxAttempts)
      return settle(p, false, failure(p, RetryState.MAXIMUM_ATTEMPTS_REACHED, cause));
    const initial = msToNumber(policy.initialInterval ?? 1000);
    const max = msToNumber(policy.maximumInterval ?? initial * 100);
    const backoff = Math.min(max, initial * (policy.backoffCoefficient ?? 2) ** (p.attempt - 1));
    const delay = cause.nextRetryDelay !== undefined ? msToNumber(cause.nextRetryDelay) : backoff;
    const next = now + delay;
    if (p.deadline !== undefined && next > p.deadline) {
      const timeout = new TimeoutFailure(
        'activity ScheduleToClose timeout',
        undefined,
        TimeoutType.SCHEDULE_TO_CLOSE,
      );
      Object.defineProperty(timeout, 'cause', { value: cause });
      return settle(p, false, failure(p, RetryState.TIMEOUT, timeout));
    }
    at(next, () => startAttempt(p));
  }

  function unblockConditions(): boolean {
    let any = false;
    for (const c of [...conditions]) {
      if (c.until()) {
        conditions = conditions.filter((x) => x !== c);
        if (c.timer !== undefined) {
          timers.delete(c.timer);
          issue({ type: 'cancel-timer', seq: c.timer });
        }
        c.done(true);
        any = true;
      }
    }
    return any;
  }

  // Workflow code runs on microtasks only: one turn of the event loop drains them all.
  const quiesce = () => new Promise((r) => setImmediate(r));
  /** Waiters for the moment nothing is left to do but wait for a test's own action. */
  let idleWaiters: Array<() => void> = [];

  let pumping = false;
  let again = false;
  /** Runs the emulation until nothing is left to do now; time moves only when all is idle. */
  async function pump(): Promise<void> {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      for (;;) {
        again = false;
        await quiesce();
        if (unblockConditions()) continue;
        if (replay) {
          if (replay.length === 0) break;
          const next = replay[0]!;
          deliver(next.delivery, applierOf(next.delivery));
          continue;
        }
        if (ready.length > 0) {
          const i = options.rng ? Math.floor(options.rng() * ready.length) : 0;
          const [r] = ready.splice(i, 1);
          // A timer cancelled after it came due never fires (its condition came true first).
          if (r!.delivery.type === 'timer' && !timers.has(r!.delivery.seq)) continue;
          deliver(r!.delivery, r!.apply);
          idle = 0;
          continue;
        }
        if (external > 0 || again) {
          await quiesce();
          continue;
        }
        if (agenda.length === 0) {
          const waiters = idleWaiters;
          idleWaiters = [];
          waiters.forEach((w) => w());
          break;
        }
        if (idle < idleTurns) {
          idle++;
          continue;
        }
        idle = 0;
        agenda.sort((a, b) => a.at - b.at || a.n - b.n);
        const first = agenda[0]!.at;
        now = Math.max(now, first);
        while (agenda.length > 0 && agenda[0]!.at <= now) agenda.shift()!.fire();
      }
    } finally {
      pumping = false;
    }
  }

  const runtime: SagaRuntime = {
    info: () => ({
      workflowId: options.workflowId ?? 'wf-1',
      runId: 'run-1',
      firstExecutionRunId: 'run-1',
      originalExecutionRunId: 'run-1',
      startTime: new Date(START),
      runStartTime: new Date(START),
      historyLength: history,
    }),
    startedWith: () => true,
    upsertSearchAttributes: (pairs) => {
      for (const p of pairs)
        if (p.key.name === 'Step') {
          steps.push(p.value as string | null);
          issue({ type: 'upsert-step', value: p.value as string | null });
        }
    },
    upsertMemo: () => issue({ type: 'memo' }),
    setCurrentDetails: () => undefined,
    condition: (until, timeoutMs) =>
      new Promise<boolean>((done) => {
        if (until()) return done(true);
        const c: (typeof conditions)[number] = { until, done };
        if (timeoutMs !== undefined) {
          const seq = ++seqs;
          c.timer = seq;
          issue({ type: 'timer', seq, ms: timeoutMs });
          timers.set(seq, () => {
            timers.delete(seq);
            conditions = conditions.filter((x) => x !== c);
            done(false);
          });
          at(now + timeoutMs, () => {
            if (timers.has(seq))
              ready.push({
                delivery: { type: 'timer', seq },
                apply: () => timers.get(seq)?.(true),
              });
          });
        }
        conditions.push(c);
        void pump();
      }),
    sleep: (ms) => runtime.condition(() => false, ms).then(() => undefined),
    now: () => now,
    execute: (call): InFlight => {
      const seq = ++seqs;
      calls.push(call);
      issue({
        type: 'activity',
        seq,
        activity: call.activity,
        key: (call.input as { key?: string } | undefined)?.key,
        local: call.local && call.round === undefined,
        round: call.round !== undefined,
      });
      let resolve!: (v: unknown) => void;
      let reject!: (e: unknown) => void;
      const result = new Promise<unknown>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const policy = activityOptionsOf(call.retry, call);
      const p: Pending = {
        seq,
        call,
        attempt: 0,
        inAttempt: false,
        cancelRequested: false,
        settled: false,
        deadline: call.round ? now + call.round.leftMs : undefined,
        maxAttempts: policy.retry?.maximumAttempts ?? 0,
        resolve,
        reject,
      };
      pending.set(seq, p);
      if (!replay) startAttempt(p);
      void pump();
      return {
        result,
        cancel: () => {
          if (p.settled || p.cancelRequested) return;
          issue({ type: 'cancel-activity', seq });
          p.cancelRequested = true;
          if (!p.inAttempt && !replay)
            settle(
              p,
              false,
              failure(p, RetryState.CANCEL_REQUESTED, new CancelledFailure('cancelled')),
            );
          void pump();
        },
      };
    },
    executeChild: (call): InFlight => {
      const seq = ++seqs;
      issue({ type: 'child', seq, workflowId: call.workflowId });
      let cancelled = false;
      const result = new Promise<unknown>((resolve, reject) => {
        children.set(seq, { resolve, reject });
        if (replay) return;
        external++;
        void Promise.resolve()
          .then(() => (options.child ?? (() => ({})))(call))
          .then(
            (value) => ({ ok: true, value }),
            (err: unknown) => ({ ok: false, value: err }),
          )
          .then((r) => {
            external--;
            if (!cancelled)
              ready.push({
                delivery: { type: 'child', seq, ...r },
                apply: () => (r.ok ? resolve(r.value) : reject(r.value)),
              });
            void pump();
          });
      });
      return {
        result,
        cancel: () => {
          if (cancelled) return;
          cancelled = true;
          issue({ type: 'cancel-child', seq });
          if (replay) return;
          const err = new ChildWorkflowFailure(
            'default',
            { workflowId: call.workflowId },
            call.workflowType,
            RetryState.NON_RETRYABLE_FAILURE,
            new CancelledFailure('cancelled'),
          );
          ready.push({
            delivery: { type: 'child', seq, ok: false, value: err },
            apply: () => children.get(seq)?.reject(err),
          });
          void pump();
        },
      };
    },
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
    shielded: (fn) => fn(),
  };

  return {
    runtime,
    calls,
    attempts,
    commands: allCommands,
    log,
    /** Step values upserted, in order (null: cleared). */
    steps,
    /** The activities scheduled, in order. */
    names: () => calls.map((c) => c.activity),
    now: () => now,
    history: () => history,
    /**
     * Resolves once nothing is left to do but wait for the test (a parked call, a wait with no
     * deadline, the run's end): time has moved on through every timer and retry due before.
     */
    idle: async () => {
      await quiesce();
      await new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        void pump();
      });
    },
    /**
     * A signal already in history when the run's first workflow task runs: the SDK keeps it
     * until the code sets its handler, then delivers it there.
     */
    signalBeforeStart: (name: string, ...args: unknown[]) => {
      log.push({ commands: [], delivery: { type: 'signal', name, args }, at: now });
      dispatchSignal(name, args);
    },
    signal: (name: string, ...args: unknown[]) => {
      ready.push({
        delivery: { type: 'signal', name, args },
        apply: () => dispatchSignal(name, args),
      });
      void pump();
    },
    /** An update: rejected at once (throws) by its validator, else delivered. */
    update: (name: string, ...args: unknown[]) => {
      validators.get(name)?.(...args);
      ready.push({
        delivery: { type: 'update', name, args },
        apply: () => handlers.get(name)?.(...args),
      });
      void pump();
    },
    cancel: () => {
      ready.push({ delivery: { type: 'cancel' }, apply: () => onCancel?.() });
      void pump();
    },
    /** Something happens at a virtual time (a property test's injection). */
    at: (when: number, fire: () => void) => at(when, fire),
    /** What a query handler answers now. */
    query: <T>(name: string) => queries.get(name)!() as T,
  };
}

export type Scripted = ReturnType<typeof scriptedRuntime>;

/** A promise the test settles later, for an activity that is in flight while the test acts. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets the event loop turn `n` times: everything ready to run has run (no wall-clock wait). */
export async function turns(n = 100): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}
