import { assertPatchedKafkaJs, requireKafkaJs } from './kafkajs-internals';

/**
 * Stops KafkaJS 2.2.4's request queues from polling themselves every millisecond.
 *
 * Each KafkaJS connection has a RequestQueue (src/network/requestQueue/index.js). After every
 * response, and from every timer it sets, it calls `scheduleCheckPendingRequests`, which
 * sets a timer whatever the queue holds: with nothing throttled its delay is
 * `throttledUntil - Date.now()`, negative, so Node runs it after 1 ms, and the timer calls
 * `checkPendingRequests`, which schedules the next one. Every open connection (a bridge has a
 * consumer's, a group coordinator's, the DLQ producer's) wakes its process a thousand times a
 * second for as long as it is open, idle or not: tulios/kafkajs#1556 and #1704, not fixed in
 * a release (#1667, the fix this follows, is unmerged).
 *
 * The replacement sets a timer only while requests are pending, for when a client-side
 * throttle ends, or after KafkaJS's own 10 ms when the delay is already over (the marginal
 * case #1532 fixed). A request that waits for an in-flight slot is sent when a response
 * frees one, as before (`fulfillRequest` and a request's timeout call checkPendingRequests
 * directly), so nothing else depended on the loop.
 */

/** KafkaJS's own delay before a pending request is checked again (CHECK_PENDING_REQUESTS_INTERVAL). */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** The part of KafkaJS's RequestQueue the replacement reads and writes. */
export interface KafkaRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/**
 * KafkaJS's scheduleCheckPendingRequests without the loop: a timer only while requests are
 * pending and none is set.
 */
export function scheduleCheckPendingRequests(this: KafkaRequestQueue): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

let installed = false;

/** Replaces RequestQueue.prototype.scheduleCheckPendingRequests, once per process. */
export function installRequestQueuePatch(): void {
  if (installed) return;
  assertPatchedKafkaJs(
    "kafka-request-queue-patch corrects KafkaJS 2.2's request queue",
    'src/kafka/kafka-request-queue-patch.ts against its network/requestQueue/index.js',
  );
  const RequestQueue = requireKafkaJs('kafkajs/src/network/requestQueue') as {
    prototype: KafkaRequestQueue;
  };
  RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  installed = true;
}
