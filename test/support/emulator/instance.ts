// The workflow code's side of one run on one worker (an incarnation: a restart or a reset
// starts another, which replays history first): the commands it issues, numbered per kind as
// the SDK numbers them, the promises waiting on their resolutions, its handlers and
// conditions, and Temporal's cancellation scopes. The SagaRuntime over it is in
// instance-runtime.ts; jobs are applied here, in the order the task (workflow-task.ts) gives.
import { AsyncLocalStorage } from 'node:async_hooks';
import { CancelledFailure } from '@temporalio/common';
import type { Command, Delivery } from './types';

/** A command's resolution the workflow code waits for. */
export interface Waiting {
  resolve(value: unknown): void;
  reject(err: unknown): void;
  /** Cancelled by Temporal's cancellation of the run (not inside `shielded`). */
  rootScoped: boolean;
  /** Resolved already (a cancel that reported at once): a later resolution is ignored. */
  done?: boolean;
  /** Applies a Temporal cancellation of the run to it. */
  cancel?: () => void;
  /** A child whose start the server confirmed. */
  started?: boolean;
  /** A child cancelled WAIT_CANCELLATION_REQUESTED: the server recorded the request. */
  onCancelRequested?: () => void;
}

export interface Condition {
  until: () => boolean;
  done(ok: boolean): void;
  /** The timer of its timeout, cancelled when it comes true first. */
  timer?: number;
  rootScoped: boolean;
  reject?: (err: unknown) => void;
}

/** Whether code runs inside `shielded` (CancellationScope.nonCancellable). */
const scope = new AsyncLocalStorage<{ shielded: boolean }>();

export class Instance {
  readonly seqs = { activity: 0, timer: 0, child: 0, signal: 0 };
  readonly waiting = new Map<string, Waiting>();
  /** Its local activities by seq (their markers name them; a restart runs the unresolved again). */
  readonly locals = new Map<number, import('../../../src/workflows/saga-runtime').ActivityCall>();
  conditions: Condition[] = [];
  /** Commands since its last workflow task completed (the SDK drops a pair cancelled before sent). */
  unsent: Command[] = [];
  /** Commands of the activation running now. */
  issued: Command[] = [];
  readonly handlers = new Map<string, (...args: unknown[]) => void>();
  readonly validators = new Map<string, (...args: unknown[]) => void>();
  /** Names whose handler is an update's (the rest are signals'). */
  readonly updateNames = new Set<string>();
  readonly buffered = new Map<string, unknown[][]>();
  readonly queries = new Map<string, () => unknown>();
  readonly onCancel: Array<() => void> = [];
  /** Updates applied in this activation with no handler yet (rejected at its end). */
  pendingUpdates: Array<{ id: number; name: string; args: unknown[] }> = [];
  /** How each update ended: accepted (its handler ran) or rejected with a reason. */
  readonly updates = new Map<number, { accepted: boolean; reason?: string }>();
  /** The time of the activation running now, and what workflowInfo() says during it. */
  now: number;
  historyLength = 0;
  historySize = 0;
  /** Temporal's cancellation of the run arrived. */
  cancelRequested = false;
  /** The run's terminal command was issued: nothing more runs. */
  closing = false;

  constructor(now: number) {
    this.now = now;
  }

  static key(kind: 'a' | 't' | 'c' | 's', seq: number): string {
    return `${kind}${seq}`;
  }

  /** Whether the code running now is outside every `shielded` (Temporal's cancel reaches it). */
  static rootScoped(): boolean {
    return scope.getStore()?.shielded !== true;
  }

  static shielded<T>(fn: () => Promise<T>): Promise<T> {
    return scope.run({ shielded: true }, fn);
  }

  issue(c: Command): void {
    if (this.closing) return;
    this.issued.push(c);
    this.unsent.push(c);
  }

  /** The command `c` is still unsent (its task has not completed): drop it, say so. */
  dropUnsent(match: (c: Command) => boolean): boolean {
    const c = this.unsent.find(match);
    if (!c) return false;
    c.dropped = true;
    return true;
  }

  /** Applies one job (`start` runs the workflow function). */
  apply(job: Delivery, start: () => void): void {
    switch (job.type) {
      case 'start':
        return start();
      case 'activity':
        return this.settle(Instance.key('a', job.seq), job.ok, job.value);
      case 'timer':
        return this.settle(Instance.key('t', job.seq), true, undefined);
      case 'child-started': {
        const w = this.waiting.get(Instance.key('c', job.seq));
        if (w) w.started = true;
        return;
      }
      case 'child':
        return this.settle(Instance.key('c', job.seq), job.ok, job.value);
      case 'signal-external':
        return this.settle(
          Instance.key('s', job.seq),
          job.ok,
          new Error('Unable to signal external workflow because it was not found'),
        );
      case 'cancel-child-requested':
        return this.waiting.get(Instance.key('c', job.seq))?.onCancelRequested?.();
      case 'signal': {
        const handler = this.handlers.get(job.name);
        if (handler) handler(...job.args);
        else this.buffered.set(job.name, [...(this.buffered.get(job.name) ?? []), job.args]);
        return;
      }
      case 'update':
        if (this.handlers.has(job.name)) this.runUpdate(job);
        else this.pendingUpdates.push(job);
        return;
      case 'cancel':
        return this.cancelRun();
    }
  }

  /** An update with its handler: the validator first (a throw rejects it), then the handler. */
  runUpdate(u: { id: number; name: string; args: unknown[] }): void {
    try {
      this.validators.get(u.name)?.(...u.args);
    } catch (err) {
      this.updates.set(u.id, { accepted: false, reason: (err as Error).message });
      return;
    }
    this.updates.set(u.id, { accepted: true });
    this.handlers.get(u.name)!(...u.args);
  }

  /** The SDK rejects updates still without a handler when their activation ends. */
  rejectBufferedUpdates(): void {
    for (const u of this.pendingUpdates)
      this.updates.set(u.id, { accepted: false, reason: `no handler for update ${u.name}` });
    this.pendingUpdates = [];
  }

  private settle(key: string, ok: boolean, value: unknown): void {
    const w = this.waiting.get(key);
    if (!w) return;
    this.waiting.delete(key);
    if (w.done) return;
    w.done = true;
    if (ok) w.resolve(value);
    else w.reject(value);
  }

  /**
   * Temporal cancelled the run: its root scope. The handlers (registered first) hear it, then
   * everything waited on outside `shielded` is cancelled, as the SDK's scopes do, in microtasks.
   */
  private cancelRun(): void {
    if (this.cancelRequested) return;
    this.cancelRequested = true;
    void Promise.resolve().then(() => {
      for (const h of this.onCancel) h();
      for (const w of [...this.waiting.values()]) if (w.rootScoped && !w.done) w.cancel?.();
      for (const c of [...this.conditions])
        if (c.rootScoped && c.timer === undefined && c.reject) {
          this.conditions = this.conditions.filter((x) => x !== c);
          c.reject(new CancelledFailure('Workflow cancelled'));
        }
    });
  }

  /** Cancels a timer: dropped with its start when that is still unsent, else CancelTimer. */
  cancelTimer(seq: number): void {
    const key = Instance.key('t', seq);
    if (!this.waiting.has(key)) return;
    this.waiting.delete(key);
    if (!this.dropUnsent((c) => c.type === 'timer' && c.seq === seq))
      this.issue({ type: 'cancel-timer', seq });
  }

  /** Runs every condition that came true (the SDK after each job and after the microtasks). */
  unblock(): boolean {
    let any = false;
    for (const c of [...this.conditions]) {
      if (!c.until()) continue;
      this.conditions = this.conditions.filter((x) => x !== c);
      if (c.timer !== undefined) this.cancelTimer(c.timer);
      c.done(true);
      any = true;
    }
    return any;
  }
}
