// New incarnations of a run's workflow code, as a worker makes them: after a restart (or a
// failed task), a new worker replays the run's history on the code it has (perhaps another
// build) and goes on live; Temporal's reset starts a new run (new run ID, the chain's first
// run ID kept) from an earlier task: the history before it, that task run again, the signals
// received after it applied again. A replay compares the commands the code issues with the
// history's, as sdk-core does: in order, each command's type and the ids core checks (an
// activity's ID and type, a timer's ID, a child's workflow ID and type, a local activity
// marker's seq and type); inputs, summaries and search attribute values are not compared.
import { Instance } from './instance';
import type { Emulator } from './emulator';
import { jsonBytes } from './limits';
import type { Command, Delivery, LogEntry, WorkflowMain } from './types';
import { activate } from './workflow-task';

/** What sdk-core compares of a command on replay (undefined: it writes no event). */
export function identityOf(c: Command): string | undefined {
  switch (c.type) {
    case 'activity':
      return c.local ? undefined : `ScheduleActivityTask id=${c.seq} type=${c.activity}`;
    case 'cancel-activity':
      return `RequestCancelActivityTask id=${c.seq}`;
    case 'timer':
      return `StartTimer id=${c.seq}`;
    case 'cancel-timer':
      return `CancelTimer id=${c.seq}`;
    case 'child':
      return `StartChildWorkflowExecution id=${c.workflowId} type=${c.workflowType}`;
    case 'cancel-child':
      return `RequestCancelExternalWorkflowExecution child=${c.seq}`;
    case 'signal-external':
      return `SignalExternalWorkflowExecution seq=${c.seq}`;
    case 'upsert':
      return 'UpsertWorkflowSearchAttributes';
    case 'memo':
      return 'ModifyWorkflowProperties';
    case 'marker':
      return `RecordMarker local activity seq=${c.seq} type=${c.activity}`;
    case 'complete':
      return 'CompleteWorkflowExecution';
    case 'fail':
      return 'FailWorkflowExecution';
    case 'cancel-run':
      return 'CancelWorkflowExecution';
    case 'continue-as-new':
      return 'ContinueAsNewWorkflowExecution';
  }
}

const sent = (cs: readonly Command[]) =>
  cs.filter((c) => !c.dropped && identityOf(c) !== undefined);

/**
 * Replays `entries` (activations of completed tasks) on the current incarnation; returns why
 * it is nondeterministic, or undefined. Commands past the history's last are new: they stay
 * unsent, for the next task to send.
 */
export async function replayLog(
  em: Emulator,
  entries: readonly LogEntry[],
): Promise<string | undefined> {
  const issued: Command[] = [];
  for (const e of entries) {
    if (em.task?.n !== e.wft) {
      // The task before completed: its commands were sent (a later cancel cannot drop them).
      em.inst.unsent = [];
      em.task = {
        n: e.wft,
        startedAt: e.at,
        next: [],
        heartbeats: 0,
        speculative: false,
        updates: [],
      };
    }
    em.inst.historyLength = e.historyLength;
    em.inst.historySize = e.historySize;
    issued.push(...(await activate(em, e.jobs)).commands);
  }
  em.task = undefined;
  const want = sent(entries.flatMap((e) => e.commands));
  const have = sent(issued);
  for (let i = 0; i < want.length; i++) {
    const w = identityOf(want[i]!);
    const h = have[i] ? identityOf(have[i]!) : undefined;
    if (w !== h)
      return `history's command ${i + 1} is ${w}, the code issued ${h ?? 'no command for it'}`;
  }
  em.inst.unsent = have.slice(want.length);
  return undefined;
}

/** Drops the task in flight (its worker is gone): its jobs come back, it times out. */
function abandonTask(em: Emulator): void {
  const { exec } = em;
  const task = em.task;
  if (!task) return;
  const mine = exec.log.filter((e) => e.wft === task.n);
  exec.log.splice(exec.log.length - mine.length, mine.length);
  exec.jobs.unshift(
    ...mine.flatMap((e) => e.jobs).filter((j) => !(j.type === 'activity' && j.local)),
  );
  exec.transact([['WorkflowTaskTimedOut']]);
  exec.taskOwed = true;
  em.task = undefined;
  exec.inFlight = false;
}

/**
 * A new worker takes the run (a restart, a deploy: `main` its code): it replays the history
 * and goes on live; local activities whose markers history lacks run again in its first task.
 * A replay that does not match leaves the run stuck (its task fails on every retry).
 */
export async function restartIncarnation(em: Emulator, main?: WorkflowMain): Promise<void> {
  if (main) em.main = main;
  const { exec } = em;
  abandonTask(em);
  em.incarnate();
  const bad = await replayLog(em, exec.log);
  if (bad !== undefined) {
    exec.stuck = `nondeterminism: ${bad}`;
    exec.taskFailures.push(exec.stuck);
    em.jobsAtStuck = exec.jobs.length;
    em.spent = true;
    if (!exec.failedOnce) exec.transact([['WorkflowTaskFailed', bad.length]]);
    exec.failedOnce = true;
    return;
  }
  exec.stuck = undefined;
  for (const [seq, call] of em.inst.locals)
    if (em.inst.waiting.has(Instance.key('a', seq))) em.rerun.push([seq, call]);
}

/**
 * Temporal's reset to task `k`: a new run with the history before it, task `k`'s jobs again,
 * the signals received after it; what the old run left pending is pending again (activities
 * retried from their first attempt, timers due when they were, children started again).
 */
export async function resetRun(em: Emulator, k: number): Promise<void> {
  const old = em.exec;
  const entries = old.log;
  const first = entries.find((e) => e.wft === k);
  if (!first) throw new Error(`reset: the run has no task ${k}`);
  old.supersede();
  const local = (j: Delivery) => j.type === 'activity' && j.local;
  // Temporal reapplies the signals after the reset point, and the updates the old run
  // accepted, as durably admitted ones (WorkflowExecutionUpdateAdmitted); an update not yet
  // accepted is not carried over (its caller hears an error), nor is a cancellation request.
  const acceptedByOld = (id: number) => em.inst.updates.get(id)?.accepted === true;
  const carried = (j: Delivery) => j.type !== 'update' || acceptedByOld(j.id);
  const admitted = (j: Delivery): Delivery => (j.type === 'update' ? { ...j, admitted: true } : j);
  const again = entries
    .filter((e) => e.wft === k)
    .flatMap((e) => e.jobs)
    .filter((j) => !local(j) && carried(j))
    .map(admitted);
  const signals = [...entries.filter((e) => e.wft > k).flatMap((e) => e.jobs), ...old.jobs]
    .filter((j) => j.type === 'signal' || (j.type === 'update' && carried(j)))
    .map(admitted);
  const exec = em.newExecution(
    { ...old.ids, runId: em.newRunId(), runStartTime: new Date(em.clock.now) },
    { events: first.historyLength, bytes: first.historySize },
  );
  const prefix = entries.filter((e) => e.wft < k);
  exec.log.push(...prefix);
  exec.taskEnds.push(...old.taskEnds.filter((t) => t.wft < k));
  exec.wft = k - 1;
  exec.write([['WorkflowTaskFailed', 40]]);
  exec.write(
    signals.map((j) =>
      j.type === 'update'
        ? ['WorkflowExecutionUpdateAdmitted', jsonBytes(j.args) + j.name.length]
        : ['WorkflowExecutionSignaled', 200],
    ),
  );
  exec.jobs.push(...again, ...signals);
  // The reset's own task: scheduled whether or not anything arrives.
  exec.taskOwed = true;
  em.exec = exec;
  em.task = undefined;
  em.incarnate();
  const bad = await replayLog(em, prefix);
  if (bad !== undefined) throw new Error(`reset: the prefix does not replay: ${bad}`);
  const issuedAt = new Map<Command, number>();
  for (const e of prefix) for (const c of e.commands) issuedAt.set(c, e.at);
  const commands = prefix.flatMap((e) => e.commands).filter((c) => !c.dropped);
  for (const c of commands) {
    const open = (kind: 'a' | 't' | 'c' | 's') =>
      'seq' in c && em.inst.waiting.has(Instance.key(kind, c.seq));
    if (c.type === 'activity' && open('a')) {
      if (c.local) em.rerun.push([c.seq, c.call]);
      else exec.activities.schedule(c.seq, c.call);
    } else if (c.type === 'cancel-activity') exec.activities.requestCancel(c.seq);
    else if (c.type === 'timer' && open('t')) exec.startTimer(c.seq, issuedAt.get(c)! + c.ms);
    else if (c.type === 'child' && open('c')) exec.children.start(c.seq, c.call);
    else if (c.type === 'signal-external' && open('s')) exec.sendSignal(c.seq, c.workflowId);
  }
  em.poke();
}
