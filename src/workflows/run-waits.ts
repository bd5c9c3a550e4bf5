// What a run does besides steps: a durable sleep, a wait for a signal or an update with a
// deadline (a manual approval), and a child workflow. Each shows in the Web UI while it lasts
// (Step, current details, the timer's summary) and ends at once when the run is cancelled.
// Workflow code.
import { isCancellation, type SignalDefinition } from '@temporalio/workflow';
import type { Duration, UpdateDefinition } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { RunInterrupted } from './run-errors';
import type { SagaRuntime } from './saga-runtime';
import type { SagaStatus } from './saga-status';
import { checkKeyName } from './names';
import type { JournalEntry } from './run-carry';

/** What waits need of their run (entity-run.ts). */
export interface WaitingRun {
  runtime: SagaRuntime;
  status: SagaStatus;
  workflowId: string;
  flags: { inflight: number };
  setStep(step: string, queried?: boolean): void;
  cancelled(): boolean;
  checkOpen(): void;
  /** The number of the body's next call, and what earlier runs of the chain recorded. */
  nextSeq(): number;
  journal: Record<number, JournalEntry>;
}

/** The Step value of a run waiting for `label`: `awaiting_approval`. */
export function awaitingStep(label: string): string {
  return `awaiting_${label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(0, 60);
}

/** A wait for a signal or an update: which, and how long at most. */
export interface WaitOptions {
  /**
   * How long the run waits at most; past it the wait returns `undefined`.
   * @example timeout: '2 days'
   */
  timeout: Duration;
}

export function createWaits(run: WaitingRun) {
  const { runtime, status } = run;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** Pauses the run's Step and details for a wait, runs it, and clears them after. */
  async function paused<T>(
    pause: NonNullable<SagaStatus['pausedFor']>,
    step: string,
    wait: () => Promise<T>,
  ): Promise<T> {
    run.checkOpen();
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
    const n = run.nextSeq();
    const entry = run.journal[n];
    if (entry?.done) return;
    // A continued run sleeps what is left of the deadline its chain set.
    const untilMs = entry?.until ?? runtime.now() + msToNumber(duration);
    run.journal[n] = { until: untilMs };
    const until = iso(untilMs);
    await paused({ label, kind: 'sleep', until }, 'sleeping', () =>
      runtime.condition(
        () => run.cancelled(),
        Math.max(0, untilMs - runtime.now()),
        `${label}: sleep until ${until}`,
      ),
    );
    run.checkOpen();
    run.journal[n] = { until: untilMs, done: true };
  }

  /**
   * Waits for `on` (a signal, or an update its sender hears back from) until the timeout:
   * returns its argument, or `undefined` when the deadline passed first. Shown as Step
   * `awaiting_<label>`. An update sent while the run is not waiting for it is rejected.
   */
  async function waitFor<T>(
    label: string,
    on: SignalDefinition<[T]> | UpdateDefinition<unknown, [T]>,
    options: WaitOptions,
  ): Promise<T | undefined> {
    const n = run.nextSeq();
    const entry = run.journal[n];
    if (entry?.done) return entry.value as T | undefined;
    const untilMs = entry?.until ?? runtime.now() + msToNumber(options.timeout);
    run.journal[n] = { until: untilMs };
    const ms = Math.max(0, untilMs - runtime.now());
    const until = iso(untilMs);
    let got: { value: T } | undefined;
    let open = true;
    const take = (value: T) => {
      if (open) got ??= { value };
    };
    const kind = on.type === 'update' ? 'update' : 'signal';
    return paused({ label, kind, until }, awaitingStep(label), async () => {
      if (on.type === 'update')
        runtime.onUpdate(on as UpdateDefinition<unknown, [T]>, take, () => {
          if (!open || got) throw new Error(`the run is not waiting for ${label}`);
        });
      else runtime.onSignal(on as SignalDefinition<[T]>, take);
      await runtime.condition(
        () => got !== undefined || run.cancelled(),
        ms,
        `${label}: wait for ${on.name} until ${until}`,
      );
      open = false;
      run.checkOpen();
      run.journal[n] = { until: untilMs, done: true, value: got?.value };
      return got?.value;
    });
  }

  /**
   * A child workflow, its ID this run's and the name (`<workflowId>/<name>`, so running it
   * again finds the same child); cancelling this run cancels it. Returns its result.
   */
  async function child<R>(
    name: string,
    workflowType: string,
    input: unknown,
    summary = `${name}: child ${workflowType}`,
  ): Promise<R> {
    checkKeyName('child', name);
    const n = run.nextSeq();
    const entry = run.journal[n];
    if (entry?.done) return entry.value as R;
    run.checkOpen();
    const workflowId = `${run.workflowId}/${name}`;
    run.flags.inflight++;
    try {
      const result = (await runtime.executeChild({ workflowType, workflowId, input, summary }, () =>
        run.cancelled(),
      )) as R;
      status.recoveryPoints.push({ step: name, at: iso(runtime.now()), how: 'done' });
      run.journal[n] = { value: result, done: true };
      return result;
    } catch (err) {
      if (isCancellation(err)) throw new RunInterrupted('cancelled');
      throw err;
    } finally {
      run.flags.inflight--;
    }
  }

  return { sleep, waitFor, child };
}
