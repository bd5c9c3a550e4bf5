// A workflow task's end: its commands checked (completion-check.ts) and written as events in
// one transaction with the updates it accepted, or the task failed: its activations never
// happened (their jobs wait for the retry), the worker's incarnation is spent, and the run is
// stuck, retried, or terminated as the failure says.
import { checkCompletion, type TaskFailure } from './completion-check';
import type { Emulator, Task } from './emulator';
import type { Events } from './server-activities';

/** Checks and writes the task's commands; false when the task failed or the run closed. */
export function commit(em: Emulator, last: boolean): boolean {
  const { exec, inst } = em;
  const task = em.task!;
  const commands = inst.unsent.filter((c) => !c.dropped);
  const accepted = task.updates.filter((u) => inst.updates.get(u.id)?.accepted);
  if (last && task.speculative && accepted.length === 0 && commands.length === 0) {
    // A rejected update leaves no trace in history.
    inst.unsent = [];
    const mine = exec.log.filter((e) => e.wft === task.n).length;
    exec.log.splice(exec.log.length - mine, mine);
    exec.wft--;
    answerUpdates(em, task);
    return true;
  }
  const failure: TaskFailure | undefined = em.codeFailure
    ? { kind: 'stuck', reason: em.codeFailure }
    : exec.forceClose
      ? { kind: 'retry', reason: 'FORCE_CLOSE_COMMAND: too many events buffered during the task' }
      : checkCompletion(commands, exec);
  if (failure) {
    fail(em, failure);
    return false;
  }
  const opening: Events = task.speculative
    ? [['WorkflowTaskScheduled'], ['WorkflowTaskStarted']]
    : [];
  if (!exec.transact([...opening, ['WorkflowTaskCompleted', task.n === 1 ? 35 : 0]])) {
    end(em);
    return false;
  }
  inst.unsent = [];
  for (const u of accepted)
    exec.write([
      ['WorkflowExecutionUpdateAccepted', u.bytes + 148],
      ['WorkflowExecutionUpdateCompleted', 150],
    ]);
  for (const c of commands) if (c.type === 'activity' && !c.local) em.calls.push(c.call);
  // The updates' callers hear their outcome with the task (before a close it may hold).
  answerUpdates(em, task);
  exec.apply(commands);
  exec.taskEnds.push({
    wft: task.n,
    events: exec.history.events,
    bytes: exec.history.bytes,
    at: em.clock.now,
  });
  exec.failedOnce = false;
  task.speculative = false;
  em.options.observe?.();
  if (exec.closed) {
    end(em);
    return false;
  }
  return true;
}

function answerUpdates(em: Emulator, task: Task): void {
  for (const u of task.updates.splice(0)) {
    const waiter = em.updateWaiters.get(u.id);
    const outcome = em.inst.updates.get(u.id);
    if (!waiter || !outcome) continue;
    em.updateWaiters.delete(u.id);
    if (outcome.accepted) waiter.resolve();
    else waiter.reject(new Error(outcome.reason ?? 'rejected'));
  }
}

/** The task failed: its activations never happened; its jobs wait for the retry. */
function fail(em: Emulator, failure: TaskFailure): void {
  const { exec } = em;
  const task = em.task!;
  const mine = exec.log.filter((e) => e.wft === task.n);
  exec.log.splice(exec.log.length - mine.length, mine.length);
  const jobs = mine.flatMap((e) => e.jobs).filter((j) => !(j.type === 'activity' && j.local));
  exec.jobs.unshift(...jobs);
  exec.taskFailures.push(failure.reason);
  if (failure.kind === 'terminate') {
    exec.transact([['WorkflowTaskFailed', failure.reason.length]]);
    exec.terminate(failure.reason);
    return end(em);
  }
  if (!exec.failedOnce) exec.transact([['WorkflowTaskFailed', failure.reason.length]]);
  exec.failedOnce = true;
  em.spent = true;
  em.locals.kill();
  if (failure.kind === 'stuck') {
    exec.stuck = failure.reason;
    em.jobsAtStuck = exec.jobs.length;
  }
  end(em);
}

export function end(em: Emulator): void {
  em.task = undefined;
  em.exec.inFlight = false;
  em.exec.buffered = { events: 0, bytes: 0 };
}
