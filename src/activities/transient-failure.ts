// The agreement between the engine's activities (providers, Kafka) and the workflows about transient
// causes. Pure (no imports): workflow code reads it to tell "wait and retry" from "park".

/**
 * Failure types of causes that retrying the same idempotency key resolves by itself: the
 * provider unreachable (connection refused or reset, DNS), no answer in time, 429, 5xx and
 * 409 (the same key in flight). Anything else is not transient, whatever it looks like.
 */
export const TRANSIENT_FAILURE_TYPES = [
  'ProviderUnreachableError',
  'ProviderTimeoutError',
  'ProviderRateLimitedError',
  'ProviderUnavailableError',
  'IdempotencyKeyInUseError',
  // Kafka without a leader, a timeout, not enough in-sync replicas (src/activities/kafka.ts).
  'KafkaUnavailableError',
  // Our Postgres going, gone or busy: a failover, a restart (src/worker/database-outage.ts).
  'DatabaseUnavailableError',
] as const;

/** The transient failure of a step whose own database is going, gone or busy. */
export const DATABASE_UNAVAILABLE: (typeof TRANSIENT_FAILURE_TYPES)[number] =
  'DatabaseUnavailableError';

/** The transient failure of a publishing step: Kafka could not take the record just now. */
export const KAFKA_UNAVAILABLE: (typeof TRANSIENT_FAILURE_TYPES)[number] = 'KafkaUnavailableError';

/**
 * The first detail of a transient ApplicationFailure. `windowMs` is the worker's
 * ORDER_TRANSIENT_RETRY_WINDOW: the workflow cannot read configuration, and the failure is
 * already in history, so handing the setting over here costs no command and lets an operator
 * change the window of orders in flight by restarting workers with a new value.
 */
export interface TransientFailureDetails {
  transient: true;
  windowMs: number;
  /**
   * The worker's ORDER_TRANSIENT_RETRY_INTERVAL: the pause between a waiting round's attempts.
   * Absent from older workers' failures: the workflow's default then (30 s).
   */
  intervalMs?: number;
  /** The provider's Retry-After, when it sent one: no retry before it. */
  retryAfterMs?: number;
  endpoint: string;
  key: string;
  status?: number;
}

export function isTransientFailureDetails(value: unknown): value is TransientFailureDetails {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { transient?: unknown }).transient === true &&
    typeof (value as { windowMs?: unknown }).windowMs === 'number'
  );
}
