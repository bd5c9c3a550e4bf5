// Workflow tasks as the server and the worker run them. Every job that arrived since the last
// task comes in ONE activation, sorted as sdk-core sorts them (prepare_to_ship_activation:
// patches, then signals and updates, then everything else in history order, then local
// activities' results) and applied as the TypeScript SDK applies them (each job, then the
// workflow function on the first activation, conditions after each job and after the
// microtasks). A task stays open while its local activities run (each result is one more
// activation of the same task), heartbeated every 8 s (a completion and a new task: three
// events); it completes after its latency, its commands checked first (completion-check.ts),
// then written as events in one transaction. A task that fails returns its jobs: a retry sees
// them again on a new incarnation that replays the history first (runs.ts).
import { flush } from './clock';
import type { Emulator, Task } from './emulator';
import { LIMITS, failureBytes, jsonBytes, payloadBytes } from './limits';
import { restartIncarnation } from './runs';
import { commit, end } from './task-completion';
import type { Delivery, LogEntry } from './types';

const ORDINAL: Record<Delivery['type'], number> = {
  start: 0,
  signal: 3,
  update: 3,
  activity: 4,
  timer: 4,
  cancel: 4,
  'child-started': 4,
  child: 4,
  'signal-external': 4,
  'cancel-child-requested': 4,
};
const ordinalOf = (j: Delivery) => (j.type === 'activity' && j.local ? 5 : ORDINAL[j.type]);

/** The jobs of one activation in sdk-core's order (a stable sort). */
export function sortJobs(jobs: readonly Delivery[]): Delivery[] {
  return [...jobs].sort((a, b) => ordinalOf(a) - ordinalOf(b));
}

/** Does what is ready now; says whether it did anything. */
export async function work(em: Emulator): Promise<boolean> {
  const control = em.controls.shift();
  if (control) {
    await control();
    return true;
  }
  const { exec } = em;
  if (exec.closed) return false;
  if (em.replayFeed) return false;
  const task = em.task;
  if (task) {
    if (task.next.length > 0) {
      await live(em, task.next.splice(0));
      return true;
    }
    if (task.latency === 'done') {
      task.latency = undefined;
      complete(em);
      return true;
    }
    return false;
  }
  if (exec.jobs.length === 0 && !exec.taskOwed) return false;
  if (exec.stuck !== undefined) {
    // Retried for ever with the same jobs; a new job (a cancel, a signal) may change that.
    if (exec.jobs.length <= em.jobsAtStuck || !em.main) return false;
    exec.stuck = undefined;
  }
  if (em.spent) {
    if (!em.main) {
      exec.stuck = 'the task failed and the test runs its own runtime (start() restarts)';
      em.jobsAtStuck = exec.jobs.length;
      return false;
    }
    await restartIncarnation(em);
    if (exec.stuck !== undefined || exec.closed) return true;
  }
  if (!begin(em)) return true;
  await live(em, exec.jobs.splice(0));
  return true;
}

/** A new task: its two events (a speculative one's wait for its outcome). */
function begin(em: Emulator): boolean {
  const { exec, inst, clock } = em;
  const speculative =
    exec.jobs.length > 0 && exec.jobs.every((j) => j.type === 'update' && !j.admitted);
  exec.taskOwed = false;
  exec.wft++;
  if (exec.wft > 1 && !speculative)
    if (!exec.transact([['WorkflowTaskScheduled'], ['WorkflowTaskStarted']])) return false;
  em.task = {
    n: exec.wft,
    startedAt: clock.now,
    next: [],
    heartbeats: 0,
    speculative,
    updates: [],
  };
  exec.inFlight = true;
  exec.buffered = { events: 0, bytes: 0 };
  exec.forceClose = false;
  inst.historyLength = exec.history.events + (speculative ? 2 : 0);
  inst.historySize = exec.history.bytes;
  for (const [seq, call] of em.rerun.splice(0)) em.locals.start(seq, call);
  return true;
}

/** One activation of the task in flight: jobs applied, microtasks run, commands taken. */
export async function activate(em: Emulator, jobs: readonly Delivery[]): Promise<LogEntry> {
  const { inst } = em;
  const task = em.task!;
  inst.now = task.startedAt;
  const sorted = sortJobs(jobs);
  let start = false;
  for (const job of sorted) {
    if (job.type === 'start') {
      start = true;
      continue;
    }
    inst.apply(job, () => undefined);
    if (job.type === 'activity' && job.local) {
      const bytes = job.ok ? payloadBytes(job.value) : failureBytes(job.value);
      const activity = inst.locals.get(job.seq)?.activity ?? '?';
      inst.issue({ type: 'marker', seq: job.seq, activity, bytes, blob: bytes });
    }
    if (job.type === 'update') task.updates.push({ id: job.id, bytes: jsonBytes(job.args) });
    inst.unblock();
  }
  if (start) {
    em.startMain();
    inst.unblock();
  }
  do await flush();
  while (inst.unblock());
  inst.rejectBufferedUpdates();
  const entry: LogEntry = {
    wft: task.n,
    at: task.startedAt,
    jobs: sorted,
    commands: inst.issued,
    historyLength: inst.historyLength,
    historySize: inst.historySize,
  };
  inst.issued = [];
  return entry;
}

/** A live activation: logged, its local activities started, then the task goes on or ends. */
async function live(em: Emulator, jobs: Delivery[]): Promise<void> {
  const entry = await activate(em, jobs);
  em.exec.log.push(entry);
  em.allCommands.push(...entry.commands);
  for (const c of entry.commands)
    if (c.type === 'activity' && c.local && !c.dropped) {
      em.calls.push(c.call);
      em.locals.start(c.seq, c.call);
    }
  settle(em);
}

/** After an activation: wait for local activities (heartbeating), for the latency, or complete. */
function settle(em: Emulator): void {
  const { clock, exec } = em;
  const task = em.task!;
  if (exec.closed) return end(em);
  // A result the activation itself caused (a local activity cancelled in its backoff reports
  // at once) is the task's next activation: core does not complete a task with one pending.
  if (task.next.length > 0) return em.poke();
  if (em.locals.running > 0 && !em.inst.closing) {
    const due = task.startedAt + LIMITS.workflowTaskHeartbeatMs;
    if (task.heartbeatAt !== due) {
      task.heartbeatAt = due;
      clock.at(due, () => heartbeat(em, task));
    }
    return;
  }
  const latency = em.options.taskLatency?.(em.inst.unsent.length, clock.rng ?? Math.random) ?? 0;
  if (latency <= 0) return complete(em);
  task.latency = 'waiting';
  clock.at(clock.now + latency, () => {
    if (em.task !== task) return;
    task.latency = 'done';
    em.poke();
  });
}

/** Local activities keep the task open past 80% of its timeout: complete it, take a new one. */
function heartbeat(em: Emulator, task: Task): void {
  const { exec, inst } = em;
  if (em.task !== task || em.locals.running === 0) return;
  if (task.next.length > 0) {
    // An activation is due first; the next settle arms the heartbeat again (already due).
    task.heartbeatAt = undefined;
    return;
  }
  if (!commit(em, false)) return;
  exec.wft++;
  if (!exec.transact([['WorkflowTaskScheduled'], ['WorkflowTaskStarted']])) return end(em);
  Object.assign(task, { n: exec.wft, startedAt: em.clock.now, heartbeats: task.heartbeats + 1 });
  inst.historyLength = exec.history.events;
  inst.historySize = exec.history.bytes;
  // What arrived meanwhile comes in this task's next activation.
  task.next.push(...exec.jobs.splice(0));
  exec.buffered = { events: 0, bytes: 0 };
  em.poke();
  settle(em);
}

/** The task completes (or fails: its commands refused). */
function complete(em: Emulator): void {
  if (commit(em, true)) end(em);
}
