import { classifyError } from './classify-error';

/** Options of connectWhileUnavailable. */
export interface ConnectOptions {
  /** Named in the warning, e.g. `consumer`. */
  what: string;
  /** Where each failed attempt is reported. */
  warn: (fields: object, message: string) => void;
  /** Pause before attempt n + 1. Default: 1 s doubling to 30 s. */
  backoffMs?: (attempt: number) => number;
  /** Gives up (rethrows) once this returns true, e.g. while stopping. Default: never. */
  stopped?: () => boolean;
}

const defaultBackoff = (attempt: number) => Math.min(30_000, 1000 * 2 ** (attempt - 1));

/**
 * Connects a KafkaJS client, waiting while Kafka is unavailable (every broker restarting, a
 * cluster coming up) instead of failing: KafkaJS gives up after its own few retries, which a
 * restart of a three-broker cluster on a busy machine outlasts, and a bridge that exits then
 * leans on a supervisor. A fault that is not an outage (authentication, a bad address
 * setting) is thrown at once, so a bad config still stops the process at start.
 */
export async function connectWhileUnavailable(
  connect: () => Promise<void>,
  { what, warn, backoffMs = defaultBackoff, stopped = () => false }: ConnectOptions,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await connect();
      return;
    } catch (err) {
      const c = classifyError(err);
      if (c.kind !== 'transient' || c.fault !== 'unavailable' || stopped()) throw err;
      warn({ err: (err as Error).message, attempt }, `${what} cannot reach Kafka; waiting`);
      // A pause between attempts, not synchronisation: there is nothing to wait on but time.
      await new Promise((r) => setTimeout(r, backoffMs(attempt)));
    }
  }
}
