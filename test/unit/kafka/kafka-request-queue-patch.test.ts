import { strict as assert } from 'node:assert';
import { createRequire } from 'node:module';
import { scheduleCheckPendingRequests } from '../../../src/kafka/kafka-request-queue-patch';
import { createKafka } from '../../../src/kafka/kafka-client';
import { waitFor } from '../../../src/util/wait';

const requireHere = createRequire(__filename);

interface Queue {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  maybeThrottle(ms: number): void;
  push(request: {
    entry: { correlationId: number; resolve: () => void; reject: () => void };
    expectResponse: boolean;
    sendRequest: () => void;
  }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  destroy(): void;
}
type QueueClass = new (options: object) => Queue;

const silent = { debug: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * KafkaJS's RequestQueue class as its file defines it, loaded afresh: the patch (installed by
 * any createKafka in this process) changes the cached module's prototype, not this one.
 */
function stockRequestQueue(): QueueClass {
  const path = requireHere.resolve('kafkajs/src/network/requestQueue');
  const cached = require.cache[path];
  delete require.cache[path];
  try {
    return requireHere(path) as QueueClass;
  } finally {
    require.cache[path] = cached;
  }
}

/** A stock RequestQueue; with `schedule`, that is its scheduleCheckPendingRequests. */
function queueWith(
  schedule?: (this: Queue) => void,
  options: object = {},
): { queue: Queue; checks: () => number } {
  const RequestQueue = stockRequestQueue();
  const queue = new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'localhost:9092',
    logger: silent,
    ...options,
  });
  if (schedule) queue.scheduleCheckPendingRequests = schedule;
  let checks = 0;
  const check = queue.checkPendingRequests.bind(queue);
  queue.checkPendingRequests = () => {
    checks++;
    check();
  };
  return { queue, checks: () => checks };
}

/** A request as a connection pushes it; `sent` is set once the queue sends it. */
function request(correlationId: number) {
  const r = { sent: false };
  return {
    r,
    pushed: {
      entry: { correlationId, resolve: () => undefined, reject: () => undefined },
      expectResponse: true,
      sendRequest: () => {
        r.sent = true;
      },
    },
  };
}

/** Runs the event loop for `ms` (what the queue does meanwhile is what is measured). */
const idle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KafkaJS request queues without their 1 ms poll (with KafkaJS’s own RequestQueue)', () => {
  it('an idle queue checks nothing after a response; KafkaJS 2.2.4’s checks every millisecond', async () => {
    for (const [name, schedule, atMost, atLeast] of [
      ['patched', scheduleCheckPendingRequests, 1, 0],
      ['stock', undefined, Infinity, 20],
    ] as const) {
      const { queue, checks } = queueWith(schedule);
      try {
        const { pushed } = request(1);
        queue.push(pushed);
        queue.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
        await idle(100);
        assert.ok(checks() <= atMost && checks() >= atLeast, `${name}: ${checks()} checks`);
      } finally {
        queue.destroy();
      }
    }
  });

  it('a request held by a client-side throttle is sent when the throttle ends', async () => {
    const { queue } = queueWith(scheduleCheckPendingRequests);
    try {
      queue.maybeThrottle(30);
      const { r, pushed } = request(1);
      queue.push(pushed);
      assert.equal(r.sent, false, 'throttled');
      await waitFor(() => r.sent, { timeoutMs: 2_000, intervalMs: 5, what: 'the send' });
      assert.equal(queue.throttleCheckTimeoutId, null, 'no timer left behind');
    } finally {
      queue.destroy();
    }
  });

  it('a request waiting for an in-flight slot is sent when a response frees one', () => {
    const { queue } = queueWith(scheduleCheckPendingRequests, { maxInFlightRequests: 1 });
    try {
      const first = request(1);
      const second = request(2);
      queue.push(first.pushed);
      queue.push(second.pushed);
      assert.deepEqual([first.r.sent, second.r.sent], [true, false]);
      queue.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
      assert.equal(second.r.sent, true);
    } finally {
      queue.destroy();
    }
  });

  it('is what every client onceflow makes uses', () => {
    createKafka({ brokers: ['127.0.0.1:1'], clientId: 'test', topics: [] } as never);
    const RequestQueue = requireHere('kafkajs/src/network/requestQueue') as { prototype: Queue };
    assert.equal(RequestQueue.prototype.scheduleCheckPendingRequests, scheduleCheckPendingRequests);
  });
});
