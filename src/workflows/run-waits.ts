// What a run does besides steps: a durable sleep, a wait for a signal or an update with a
// deadline (a manual approval), and a child workflow. Each shows in the Web UI while it lasts
// (Step, current details, the timer's summary) and ends at once when the run stops going
// forward. Workflow code.
import {
  ChildWorkflowFailure,
  isCancellation,
  TerminatedFailure,
  TimeoutFailure,
  type SignalDefinition,
} from '@temporalio/workflow';
import type { Duration, UpdateDefinition } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { awaitOperator, type RoundsContext } from './call-rounds';
import { checkKeyName } from './names';
import { callReserve, payloadBytes, type Budget, type Usage } from './run-budget';
import { RunCheckpoint } from './run-checkpoint';
import {
  activeCalls,
  bodyOpen,
  claimGate,
  openCall,
  type CallRecord,
  type RunState,
} from './run-state';
import { claimVerdict, interrupted } from './run-step';
import type { SagaRuntime } from './saga-runtime';
import type { SagaStatus } from './saga-status';
import type { StallFace } from './stall-face';
import type { StackEntry } from './run-types';

/** What waits need of their run (entity-run.ts). */
export interface WaitingRun {
  runtime: SagaRuntime;
  status: SagaStatus;
  state: RunState;
  workflowId: string;
  spec: { claim?: { step: string } };
  input: { resume?: { mailboxes: Record<string, unknown[]> } };
  budget: Budget;
  rounds: RoundsContext;
  face: StallFace;
  setStep(step: string, queried?: boolean): void;
  /** A signal or update arrived: the run checks its budget's last line (run-setup.ts). */
  react(): void;
  /** A child's undo as the definition declares it (`children`), from its result when known. */
  childUndo?(name: string, result?: unknown): StackEntry | undefined;
}

/** What a sleep or a wait may write: its timer, the message, the workflow tasks around them. */
const WAIT_COST: Usage = { events: 10, bytes: 10 * 1024 };

/** The Step value of a run waiting for `label`: `awaiting_approval`. */
export function awaitingStep(label: string): string {
  return `awaiting_${label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(0, 60);
}

/** A wait for a signal or an update: how long at most, and what it accepts. */
export interface WaitOptions<T = unknown> {
  /**
   * How long the run waits at most; past it `receive` says `timedOut` (`waitFor`: `undefined`).
   * @example timeout: '2 days'
   */
  timeout: Duration;
  /**
   * An update's check of its argument: a throw rejects it (its sender hears the message) and
   * the wait goes on. Signals cannot be refused: check their value in the body. Default: none.
   * @example validate: (a) => { if (typeof a?.approved !== 'boolean') throw new Error('approved: true or false') }
   */
  validate?: (value: T) => void;
}

/**
 * How a wait ended: the signal or update arrived (its argument in `value`, whatever it is,
 * `undefined` included), or the deadline passed first.
 */
export type WaitResult<T> = { timedOut: false; value: T } | { timedOut: true };

export function createWaits(run: WaitingRun) {
  const { runtime, status, state } = run;
  const iso = (ms: number) => new Date(ms).toISOString();
  const checkOpen = () => {
    if (!bodyOpen(state)) throw interrupted(state);
  };
  /**
   * What arrived for each signal or update, in order, until a wait takes it: a signal sent
   * before its wait (or between two waits for it) waits for the next one, never dropped.
   */
  const mailboxes = new Map<string, unknown[]>();
  const carried: Record<string, unknown[]> = { ...run.input.resume?.mailboxes };
  /** The updates a wait is open for now (an update no wait takes is rejected). */
  const open = new Set<string>();

  /** Each update's check of the wait open for it now. */
  const checks = new Map<string, ((value: never) => void) | undefined>();

  function mailboxOf<T>(on: SignalDefinition<[T]> | UpdateDefinition<unknown, [T]>): unknown[] {
    let box = mailboxes.get(on.name);
    if (box) return box;
    // What the previous run of the chain received and no wait took (a checkpoint carried it).
    box = carried[on.name] ?? [];
    delete carried[on.name];
    mailboxes.set(on.name, box);
    const take = (value: T) => {
      box.push(value);
      run.react();
    };
    if (on.type === 'update')
      runtime.onUpdate(on as UpdateDefinition<unknown, [T]>, take, (value: T) => {
        if (!open.has(on.name) || box.length > 0)
          throw new Error(`the run is not waiting for ${on.name}`);
        checks.get(on.name)?.(value as never);
      });
    // The SDK keeps a signal that arrived before this handler, and delivers it now.
    else runtime.onSignal(on as SignalDefinition<[T]>, take);
    return box;
  }

  /** Pauses the run's Step and details for a wait, runs it, and clears them after. */
  async function paused<T>(
    pause: NonNullable<SagaStatus['pausedFor']>,
    step: string,
    wait: () => Promise<T>,
  ): Promise<T> {
    checkOpen();
    status.pausedFor = pause;
    run.setStep(step, true);
    try {
      return await wait();
    } finally {
      status.pausedFor = undefined;
    }
  }

  /**
   * The history budget's gate of a sleep, a wait or a child: past the forward budget it parks
   * like a step (cause `history-budget`), for an operator to retry it (taken under the retry
   * budget) or resolve it (the sleep is over; the message, or the child's result, is the
   * operator's `--result`). Returns that resolve, or undefined to go on.
   */
  async function admitted(
    name: string,
    running: string,
    cost: Usage,
    record?: CallRecord,
  ): Promise<{ value: unknown } | undefined> {
    const refusal = run.budget.forwardRefusal(cost);
    if (refusal === undefined) return undefined;
    const call = record ?? openCall(state, { name, kind: 'wait', key: '' });
    const sinceMs = runtime.now();
    const park = () => {
      call.state = 'parked';
      call.stall = { cause: refusal, sinceMs };
      run.face.parked(call, running);
    };
    park();
    const decision = await awaitOperator(run.rounds, call, { park });
    call.state =
      decision.kind === 'stopped' ? 'stopped' : decision.kind === 'resolved' ? 'resolved' : 'done';
    if (record && decision.kind === 'retry') call.state = 'running';
    call.stall = undefined;
    run.face.cleared(call, running);
    if (decision.kind === 'stopped') throw interrupted(state);
    return decision.kind === 'resolved' ? { value: decision.value } : undefined;
  }

  /**
   * A checkpoint of a long-lived loop: past Temporal's warning lines (run-budget.ts
   * CHECKPOINT_LINE, or the server's suggestion) the run continues as new with `body` once no
   * call is in flight, and the next run's body gets it as `resumed`; before them it returns.
   */
  async function checkpoint(body: unknown): Promise<void> {
    checkOpen();
    if (!run.budget.checkpointDue(runtime.info().continueAsNewSuggested ?? false)) return;
    await runtime.condition(() => activeCalls(state) === 0 || !bodyOpen(state));
    checkOpen();
    const pending: Record<string, unknown[]> = { ...carried };
    for (const [name, box] of mailboxes) if (box.length > 0) pending[name] = box;
    throw new RunCheckpoint(body, pending);
  }

  /**
   * A durable timer: the run sleeps `duration` (a renewal reminder in 14 days), shown as Step
   * `sleeping`; a cancellation wakes it and unwinds.
   */
  async function sleep(label: string, duration: Duration): Promise<void> {
    checkOpen();
    if (await admitted(label, 'sleeping', WAIT_COST)) return;
    const ms = msToNumber(duration);
    const until = iso(runtime.now() + ms);
    await paused({ label, kind: 'sleep', until }, 'sleeping', () =>
      runtime.condition(() => !bodyOpen(state), ms, `${label}: sleep until ${until}`),
    );
    checkOpen();
  }

  /**
   * Waits for `on` (a signal, or an update its sender hears back from) until the timeout.
   * Shown as Step `awaiting_<label>`. An update sent while the run is not waiting for it is
   * rejected; a signal is kept for the next wait.
   */
  async function receive<T>(
    label: string,
    on: SignalDefinition<[T]> | UpdateDefinition<unknown, [T]>,
    options: WaitOptions<T>,
  ): Promise<WaitResult<T>> {
    checkOpen();
    const resolved = await admitted(label, awaitingStep(label), WAIT_COST);
    if (resolved) return { timedOut: false, value: resolved.value as T };
    const box = mailboxOf(on);
    checks.set(on.name, options.validate as ((value: never) => void) | undefined);
    const ms = msToNumber(options.timeout);
    const until = iso(runtime.now() + ms);
    const kind = on.type === 'update' ? 'update' : 'signal';
    open.add(on.name);
    try {
      await paused({ label, kind, until }, awaitingStep(label), () =>
        runtime.condition(
          () => box.length > 0 || !bodyOpen(state),
          ms,
          `${label}: wait for ${on.name} until ${until}`,
        ),
      );
    } finally {
      open.delete(on.name);
    }
    checkOpen();
    return box.length > 0 ? { timedOut: false, value: box.shift() as T } : { timedOut: true };
  }

  /** `receive`'s wait, answered the deprecated way: the value, or `undefined` past the deadline. */
  async function waitFor<T>(
    label: string,
    on: SignalDefinition<[T]> | UpdateDefinition<unknown, [T]>,
    options: WaitOptions<T>,
  ): Promise<T | undefined> {
    const answer = await receive(label, on, options);
    return answer.timedOut ? undefined : answer.value;
  }

  /**
   * A child workflow, its ID this run's and the name (`<workflowId>/<name>`), called once per
   * run; the run stopping cancels it. Returns its result; its failure is the body's to catch.
   */
  async function child<R>(
    name: string,
    workflowType: string,
    input: unknown,
    summary = `${name}: child ${workflowType}`,
  ): Promise<R> {
    checkKeyName('child', name);
    checkOpen();
    const claimStep = run.spec.claim?.step;
    if (claimGate(state, claimStep, name) !== 'open')
      await claimVerdict(runtime, state, claimStep, name);
    const workflowId = `${run.workflowId}/${name}`;
    const record = openCall(state, { name, kind: 'child', key: workflowId });
    record.inputBytes = payloadBytes(input);
    const resolved = await admitted(name, name, callReserve(record.inputBytes), record);
    if (resolved) {
      // The operator says the child's work is done: its undo is owed like a completed one's.
      record.compensation = run.childUndo?.(name, resolved.value);
      status.recoveryPoints.push({ step: name, at: iso(runtime.now()), how: 'resolved' });
      return resolved.value as R;
    }
    const inFlight = runtime.executeChild({ workflowType, workflowId, input, summary });
    record.interrupt = inFlight.cancel;
    try {
      const result = (await inFlight.result) as R;
      record.state = 'done';
      // Its effect exists: the undo the definition declares is owed (from its result).
      record.compensation = run.childUndo?.(name, result);
      status.recoveryPoints.push({ step: name, at: iso(runtime.now()), how: 'done' });
      return result;
    } catch (err) {
      // A child terminated or timed out may have acted: its undo is owed. One that failed or
      // was cancelled ended by its own rules (a run of the engine unwound itself).
      if (
        err instanceof ChildWorkflowFailure &&
        (err.cause instanceof TerminatedFailure || err.cause instanceof TimeoutFailure)
      )
        record.compensation = run.childUndo?.(name);
      if (isCancellation(err)) {
        record.state = 'stopped';
        throw interrupted(state);
      }
      record.state = 'failed';
      throw err;
    } finally {
      record.interrupt = undefined;
    }
  }

  return { sleep, receive, waitFor, child, checkpoint };
}
