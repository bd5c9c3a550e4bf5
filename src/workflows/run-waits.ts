// What a run does besides steps: a durable sleep, a wait for a signal or an update with a
// deadline (a manual approval), and a child workflow. Each shows in the Web UI while it lasts
// (Step, current details, the timer's summary) and ends at once when the run stops going
// forward. Workflow code.
import { isCancellation, type SignalDefinition } from '@temporalio/workflow';
import type { Duration, UpdateDefinition } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { checkKeyName } from './names';
import { bodyOpen, openCall, type RunState } from './run-state';
import { interrupted } from './run-step';
import type { SagaRuntime } from './saga-runtime';
import type { SagaStatus } from './saga-status';

/** What waits need of their run (entity-run.ts). */
export interface WaitingRun {
  runtime: SagaRuntime;
  status: SagaStatus;
  state: RunState;
  workflowId: string;
  setStep(step: string, queried?: boolean): void;
}

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
  /** The updates a wait is open for now (an update no wait takes is rejected). */
  const open = new Set<string>();

  /** Each update's check of the wait open for it now. */
  const checks = new Map<string, ((value: never) => void) | undefined>();

  function mailboxOf<T>(on: SignalDefinition<[T]> | UpdateDefinition<unknown, [T]>): unknown[] {
    let box = mailboxes.get(on.name);
    if (box) return box;
    box = [];
    mailboxes.set(on.name, box);
    const take = (value: T) => void box.push(value);
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
   * A durable timer: the run sleeps `duration` (a renewal reminder in 14 days), shown as Step
   * `sleeping`; a cancellation wakes it and unwinds.
   */
  async function sleep(label: string, duration: Duration): Promise<void> {
    checkOpen();
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
    const workflowId = `${run.workflowId}/${name}`;
    const record = openCall(state, { name, kind: 'child', key: workflowId });
    const inFlight = runtime.executeChild({ workflowType, workflowId, input, summary });
    record.interrupt = inFlight.cancel;
    try {
      const result = (await inFlight.result) as R;
      record.state = 'done';
      status.recoveryPoints.push({ step: name, at: iso(runtime.now()), how: 'done' });
      return result;
    } catch (err) {
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

  return { sleep, receive, waitFor, child };
}
