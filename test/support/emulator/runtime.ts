// A deterministic emulation of what a run meets in Temporal, for unit tests of the engine's
// workflow code without a server, as strict as the server and the SDK are where a run can
// tell: history counted event by event and byte by byte with the server's limits
// (limits.ts), workflow tasks batching what arrived in sdk-core's job order
// (workflow-task.ts), activities with their retry policies, timeouts and cancellation types
// (server-activities.ts), local activities run inside the task with markers and task
// heartbeats (local-activities.ts), timers on a virtual clock, signals kept until a handler
// is set, updates with validators (a rejected one writes nothing), Temporal's cancellation
// of the run and its scopes, children with their lifecycle (server-children.ts), worker
// restarts on the same or other code, resets and continue-as-new (runs.ts).
//
// Two ways to run code on it: `start(main)`, where the emulator starts the workflow function
// (and can start it again: a restart, a failed task's retry, a reset, a new run), or the test
// calls the code with `runtime` itself (one incarnation: a failed task then stays failed).
import type { Emulator as EmulatorState } from './emulator';
import { Emulator } from './emulator';
import { payloadBytes } from './limits';
import { replayLog, resetRun, restartIncarnation } from './runs';
import type { Answer, EmulatorOptions, WorkflowMain } from './types';
import { work } from './workflow-task';

export {
  activityCall,
  businessError,
  businessFailure,
  deferred,
  inputOf,
  outage,
  permanent,
  turns,
} from './failures';
export { LIMITS, PAYLOAD_OVERHEAD, payloadBytes } from './limits';
export { START } from './clock';
export type {
  Answer,
  AttemptInfo,
  Closed,
  Command,
  Delivery,
  EmulatorOptions,
  LogEntry,
  WorkflowMain,
} from './types';

/** The compat `replay` option: the log is replayed once, then nothing more runs. */
async function workOrReplay(em: EmulatorState): Promise<boolean> {
  if (!em.replayFeed) return work(em);
  if (em.replayFeed.length === 0) return false;
  const bad = await replayLog(em, em.replayFeed.splice(0));
  if (bad !== undefined) throw new Error(`nondeterminism on replay: ${bad}`);
  return true;
}

export function scriptedRuntime(answer: Answer, options: EmulatorOptions = {}) {
  const em: Emulator = new Emulator(answer, options, () => workOrReplay(em));
  let resets = 0;
  const exec = () => em.exec;
  const poke = () => em.poke();
  const control = (fn: () => Promise<void>) =>
    new Promise<void>((resolve, reject) => {
      em.controls.push(() => fn().then(resolve, reject));
      poke();
    });
  return {
    /**
     * The runtime of the incarnation now: a test that runs the code itself takes the first
     * (synchronously, before it awaits anything: the first task then collects what it issued).
     */
    get runtime() {
      if (!em.main) poke();
      return em.runtime;
    },
    /** Starts the workflow function in the run's first task; resolves when the chain closes. */
    start(main: WorkflowMain, input?: unknown) {
      em.main = main;
      if (input !== undefined) em.input = input;
      poke();
      return em.whenClosed();
    },
    /** Every activity scheduled (a local one when it ran), every attempt, every command. */
    calls: em.calls,
    attempts: em.attempts,
    commands: em.allCommands,
    /** The current run's activations. */
    get log() {
      return exec().log;
    },
    /** Step values upserted, in order (null: cleared). */
    steps: em.steps,
    /** The activities scheduled, in order. */
    names: () => em.calls.map((c) => c.activity),
    now: () => em.clock.now,
    /** The current run's history: events, bytes, by type. */
    history: () => exec().history.events,
    historyBytes: () => exec().history.bytes,
    eventCount: (type: Parameters<EmulatorState['exec']['history']['count']>[0]) =>
      exec().history.count(type),
    /** How the current run stands: closed (how), stuck (why its task fails), its IDs. */
    status: () => ({
      closed: exec().closed,
      stuck: exec().stuck,
      ids: exec().ids,
      taskFailures: [...exec().taskFailures],
    }),
    /** Resolves when the chain's last run closes. */
    closed: () => em.whenClosed(),
    idle: () => em.clock.whenIdle(() => workOrReplay(em)),
    /**
     * A signal already in history when the run's first task runs: the SDK applies it before
     * the workflow function starts, and keeps it until its handler is set. (A test that runs
     * the code itself has started it: the signal waits in the SDK's buffer the same way.)
     */
    signalBeforeStart: (name: string, ...args: unknown[]) => {
      exec().write([['WorkflowExecutionSignaled', payloadBytes(args[0]) + name.length]]);
      const job = { type: 'signal' as const, name, args };
      if (em.main) exec().jobs.push(job);
      else em.inst.apply(job, () => undefined);
    },
    signal: (name: string, ...args: unknown[]) => {
      exec().arrive({ type: 'signal', name, args }, [
        ['WorkflowExecutionSignaled', payloadBytes(args[0]) + name.length],
      ]);
    },
    /** An update: resolves when accepted, rejects with the validator's reason (no event then). */
    update: (name: string, ...args: unknown[]) =>
      new Promise<void>((resolve, reject) => {
        const id = ++em.updateIds;
        em.updateWaiters.set(id, { resolve, reject });
        exec().jobs.push({ type: 'update', name, args, id });
        poke();
      }),
    /** Temporal's cancellation of the run (Web UI, CLI). */
    cancel: () => exec().arrive({ type: 'cancel' }, [['WorkflowExecutionCancelRequested']]),
    /** Something happens at a virtual time (a property test's injection). */
    at: (when: number, fire: () => void) => em.clock.at(when, fire),
    /** How the code now takes `name`: as an update, a signal, or not (yet). */
    handles: (name: string): 'update' | 'signal' | undefined =>
      em.inst.updateNames.has(name) ? 'update' : em.inst.handlers.has(name) ? 'signal' : undefined,
    /** What a query handler answers now. */
    query: <T>(name: string) => em.inst.queries.get(name)!() as T,
    /** Activations of the current run's completed tasks (what a replay replays). */
    completedLog: () => exec().log.filter((e) => exec().taskEnds.some((t) => t.wft === e.wft)),
    /** The numbers of the tasks the current run has completed, in order (a reset's points). */
    tasks: () =>
      exec()
        .taskEnds.map((t) => t.wft)
        .filter((n) => exec().log.some((e) => e.wft === n)),
    /**
     * The worker restarts (on `main`: other code, a deploy): the run replays its history and
     * goes on, between tasks (a task in flight times out). Safe to call from `at`.
     */
    restart: (main?: WorkflowMain) => control(() => restartIncarnation(em, main)),
    /** Temporal's reset to task `k` of the current run (a new run goes on from there). */
    reset: (k: number) =>
      control(() => {
        resets++;
        return resetRun(em, k);
      }),
    /** How many resets the chain has had: what ran before one may run again after it. */
    resets: () => resets,
  };
}

export type Scripted = ReturnType<typeof scriptedRuntime>;
