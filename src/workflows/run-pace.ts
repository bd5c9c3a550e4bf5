// How fast a run schedules its calls, so that no workflow task breaks one of Temporal's limits
// however wide the body fans out (`Promise.all` over a thousand items): at most
// MAX_CALLS_IN_FLIGHT activities pending at once (Temporal fails a task past 2,000), and at
// most MAX_TASK_PAYLOAD_BYTES of new inputs in one workflow task's completion (a completion
// over the 4 MB gRPC limit terminates the run). Calls are admitted first come, first served; a
// call that would overfill this task waits for the next one (one short timer for all of them).
// Workflow code.
import { MAX_CALLS_IN_FLIGHT, MAX_TASK_PAYLOAD_BYTES } from './run-budget';
import type { SagaRuntime } from './saga-runtime';

/** Gives a slot back: the call's activity closed (or was never scheduled). */
export type Release = () => void;

export function createPace(runtime: SagaRuntime) {
  /** Calls waiting to be admitted, first come first served. */
  const queue: number[] = [];
  let nextTicket = 0;
  let inFlight = 0;
  /** The workflow task whose scheduled bytes `taskBytes` counts (its history length). */
  let task = -1;
  let taskBytes = 0;
  /** The one timer that ends this workflow task for every call that did not fit. */
  let boundary: Promise<void> | undefined;

  const fitsThisTask = (bytes: number) => {
    const length = runtime.info().historyLength;
    if (length !== task) {
      task = length;
      taskBytes = 0;
    }
    return taskBytes === 0 || taskBytes + bytes <= MAX_TASK_PAYLOAD_BYTES;
  };
  const nextTask = () =>
    (boundary ??= runtime.sleep(1).then(() => {
      boundary = undefined;
    }));

  /**
   * Resolves with a release once an activity of `bytes` may be scheduled, or with undefined
   * when `stopped` came true first (nothing may be scheduled then).
   */
  async function admit(bytes: number, stopped: () => boolean): Promise<Release | undefined> {
    const ticket = nextTicket++;
    queue.push(ticket);
    try {
      for (;;) {
        if (stopped()) return undefined;
        if (queue[0] === ticket && inFlight < MAX_CALLS_IN_FLIGHT) {
          if (fitsThisTask(bytes)) break;
          await nextTask();
          continue;
        }
        await runtime.condition(
          () => stopped() || (queue[0] === ticket && inFlight < MAX_CALLS_IN_FLIGHT),
        );
      }
    } finally {
      queue.splice(queue.indexOf(ticket), 1);
    }
    inFlight++;
    taskBytes += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight--;
    };
  }

  return { admit };
}

export type Pace = ReturnType<typeof createPace>;
