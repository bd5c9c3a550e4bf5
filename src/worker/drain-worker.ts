// One drain: a worker of another build of the deployment, on its stored code, run by the
// refresh of ./build-drains.ts until its build needs none or its turn passes.
import type { Worker } from '@temporalio/worker';

/** A drain worker running, as the refresh keeps it. */
export interface Drain {
  worker: Worker;
  /** Settles when the worker has stopped (a failure goes to runDrain's `onFailed`). */
  running: Promise<void>;
  /** Whether the worker stopped (on its own, or told to). */
  ended: boolean;
  /** The refresh at which its turn began. */
  turn: number;
}

/** Runs `worker` as a drain whose turn began at refresh `turn`; a failure goes to `onFailed`. */
export function runDrain(worker: Worker, turn: number, onFailed: (err: unknown) => void): Drain {
  const drain: Drain = { worker, running: Promise.resolve(), ended: false, turn };
  drain.running = worker.run().then(
    () => void (drain.ended = true),
    (err: unknown) => {
      drain.ended = true;
      onFailed(err);
    },
  );
  return drain;
}

/** Shuts the drain's worker down unless it is stopping already, and waits for its end. */
export async function endDrain(drain: Drain): Promise<void> {
  // Shutdown throws on a worker that is not running (SIGTERM reaches every worker at once).
  if (drain.worker.getState() === 'RUNNING') drain.worker.shutdown();
  await drain.running;
}
