import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import {
  RetriesExhaustedError,
  RetryAbortedError,
  retryClassified,
} from '../../../src/kafka-bridge/backoff';
import { DLQ_HEADER } from '../../../src/events/dlq-message';
import {
  DLQ_STUB_HEADER,
  STUB_HEAD_BYTES,
  STUB_MAX_HEADER_NAMES,
  buildDlqStub,
  type DlqStubValue,
} from '../../../src/kafka-bridge/dlq-stub';
import {
  PartitionOwnership,
  isMembershipLost,
} from '../../../src/kafka-bridge/partition-ownership';
import { PartitionProgress } from '../../../src/kafka-bridge/partition-progress';
import { PartitionCommits } from '../../../src/kafka-bridge/partition-commits';

describe('retryClassified', () => {
  const opts = (over: Partial<Parameters<typeof retryClassified>[1]> = {}) => ({
    what: 'test',
    shouldContinue: () => true,
    heartbeat: async () => undefined,
    backoff: { initialMs: 1, maxMs: 2 },
    ...over,
  });

  it('retries a transient error past the bound, a permanent one exactly maxAttempts times', async () => {
    let n = 0;
    const v = await retryClassified(async () => {
      if (++n < 6) throw Object.assign(new Error('down'), { code: 'ECONNRESET' });
      return 'ok';
    }, opts());
    assert.equal(v, 'ok');
    let m = 0;
    await assert.rejects(
      retryClassified(
        async () => {
          m++;
          throw new TypeError('bad');
        },
        opts({ maxAttempts: 3 }),
      ),
      (err: unknown) =>
        err instanceof RetriesExhaustedError &&
        err.attempts === 3 &&
        /TypeError: bad/.test(err.message),
    );
    assert.equal(m, 3);
  });

  it('aborts when the caller stops', async () => {
    let go = true;
    await assert.rejects(
      retryClassified(
        async () => {
          go = false;
          throw Object.assign(new Error('down'), { code: 'ECONNREFUSED' });
        },
        opts({ shouldContinue: () => go }),
      ),
      RetryAbortedError,
    );
  });
});

describe('buildDlqStub', () => {
  const value = Buffer.alloc(3 * 1024 * 1024, 0xab);
  const headers = Object.fromEntries(
    Array.from({ length: 150 }, (_, i) => [`h-${i}`, Buffer.from('v')]),
  );
  const stub = buildDlqStub({
    message: { key: Buffer.from('order-1'), value, headers },
    topic: 'orders',
    partition: 4,
    offset: '77',
    reason: 'oversized',
    error: 'value is 3145728 bytes',
    refusal:
      'KafkaJSProtocolError: The request included a message larger than the max message size the server will accept',
    failedAt: new Date('2026-11-23T10:00:00Z'),
  });
  const body = JSON.parse(stub.message.value!.toString()) as DlqStubValue;

  it('is small, keeps the key, and names reason, cause and source in headers', () => {
    assert.equal(stub.topic, 'orders.dlq');
    assert.ok(stub.message.value!.length < 8 * 1024, `stub is ${stub.message.value!.length} bytes`);
    assert.equal(stub.message.key!.toString(), 'order-1');
    const h = stub.message.headers;
    assert.equal(h[DLQ_HEADER.reason], 'oversized');
    assert.equal(h[DLQ_HEADER.sourceTopic], 'orders');
    assert.equal(h[DLQ_HEADER.sourcePartition], '4');
    assert.equal(h[DLQ_HEADER.sourceOffset], '77');
    assert.equal(h[DLQ_STUB_HEADER.stub], 'true');
    assert.match(String(h[DLQ_STUB_HEADER.cause]), /larger than the max message size/);
    for (const v of Object.values(h)) assert.equal(typeof v, 'string', 'only plain string headers');
  });

  it('carries size, sha256 and the first KiB of the value, and the bounded header names', () => {
    assert.equal(body.value!.size, value.length);
    assert.equal(body.value!.sha256, createHash('sha256').update(value).digest('hex'));
    assert.deepEqual(
      Buffer.from(body.value!.headBase64, 'base64'),
      value.subarray(0, STUB_HEAD_BYTES),
    );
    assert.equal(body.headers.count, 150);
    assert.equal(body.headers.names.length, STUB_MAX_HEADER_NAMES);
    assert.equal(body.headers.namesTruncated, true);
    assert.deepEqual(body.source, { topic: 'orders', partition: 4, offset: '77' });
  });

  it('reads only header names, so hostile (inherited-looking) headers cannot break it', () => {
    const hostile = JSON.parse('{"__proto__": 1}') as Record<string, unknown>;
    Object.defineProperty(hostile, 'constructor', {
      value: [Object, Buffer.from('x')],
      enumerable: true,
    });
    const s = buildDlqStub({
      message: { key: Buffer.alloc(5000), value: null, headers: hostile as never },
      topic: 't',
      partition: 0,
      offset: '0',
      reason: 'unparseable',
      error: 'e',
      refusal: 'TypeError',
      failedAt: new Date(),
    });
    const b = JSON.parse(s.message.value!.toString()) as DlqStubValue;
    assert.deepEqual(b.headers.names.sort(), ['__proto__', 'constructor']);
    assert.equal(s.message.key, null, 'a key over 1 KiB is not kept');
    assert.equal(b.key!.size, 5000);
    assert.equal(b.value, null);
  });
});

describe('PartitionOwnership', () => {
  it('a lease ends with its generation, even if the partition comes back', () => {
    const o = new PartitionOwnership();
    o.assign({ orders: [0, 1] });
    const lease = o.lease('orders', 1);
    assert.equal(lease.valid(), true);
    assert.equal(o.lease('orders', 2).valid(), false);
    o.revokeAll();
    assert.equal(lease.valid(), false);
    o.assign({ orders: [1] });
    assert.equal(lease.valid(), false, 'old generation stays invalid');
    assert.equal(o.lease('orders', 1).valid(), true);
  });

  it('recognises the heartbeat errors that mean membership is lost', () => {
    assert.equal(isMembershipLost({ type: 'REBALANCE_IN_PROGRESS' }), true);
    assert.equal(isMembershipLost({ type: 'UNKNOWN_MEMBER_ID' }), true);
    assert.equal(isMembershipLost({ type: 'REQUEST_TIMED_OUT' }), false);
    assert.equal(isMembershipLost(new Error('x')), false);
  });
});

describe('PartitionProgress', () => {
  it('counts seconds since the last commit while messages wait, 0 when caught up', () => {
    let now = 1_000_000;
    const p = new PartitionProgress(() => now);
    p.noteBatch('orders', 0, '5', '10');
    now += 30_000;
    assert.deepEqual(p.stalls(), [{ topic: 'orders', partition: 0, seconds: 30 }]);
    p.noteCommitted('orders', 0, '8');
    now += 2_000;
    assert.equal(p.stalls()[0]!.seconds, 2);
    p.noteCommitted('orders', 0, '10');
    now += 60_000;
    assert.equal(p.stalls()[0]!.seconds, 0, 'caught up');
    p.noteBatch('orders', 0, '10', '11');
    now += 4_000;
    assert.equal(p.stalls()[0]!.seconds, 4, 'the clock starts when a message waits again');
    p.retainOnly(() => false);
    assert.deepEqual(p.stalls(), []);
  });
});

describe('PartitionProgress: lag against the readable end', () => {
  it('reports readable end minus committed, and a partition first seen through markers alone', () => {
    let now = 1_000_000;
    const p = new PartitionProgress(() => now);
    // A transaction is open from offset 12: the fetch's last stable offset is 12, whatever the
    // high watermark says.
    p.noteBatch('orders', 0, '5', '12');
    assert.deepEqual(p.lags(), [{ topic: 'orders', partition: 0, messages: 7 }]);
    p.noteCommitted('orders', 0, '12');
    now += 600_000;
    assert.deepEqual(p.lags(), [{ topic: 'orders', partition: 0, messages: 0 }]);
    assert.equal(p.stalls()[0]!.seconds, 0, 'an open transaction is not a stall');
    // Partition 1 was only ever fetched as a trailing commit marker at offset 40.
    p.noteCommitted('orders', 1, '41');
    assert.deepEqual(p.lags()[1], { topic: 'orders', partition: 1, messages: 0 });
    assert.equal(p.stalls()[1]!.seconds, 0);
  });
});

describe('PartitionCommits', () => {
  it('sends one partition’s commits in order and never an offset below one already sent', async () => {
    const commits = new PartitionCommits();
    const sent: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const first = commits.commit('orders', 0, '10', async () => {
      await slow;
      sent.push('10');
    });
    const lower = commits.commit('orders', 0, '8', async () => {
      sent.push('8');
    });
    const other = commits.commit('orders', 1, '3', async () => {
      sent.push('p1:3');
    });
    assert.equal(await other, true, 'another partition does not wait');
    release();
    assert.deepEqual([await first, await lower], [true, false]);
    assert.deepEqual(sent, ['p1:3', '10']);
    commits.reset();
    assert.equal(
      await commits.commit('orders', 0, '8', async () => undefined),
      true,
      'a new generation starts afresh',
    );
  });

  it('a failed commit fails its caller and does not block the next one', async () => {
    const commits = new PartitionCommits();
    await assert.rejects(
      commits.commit('orders', 0, '5', async () => {
        throw new Error('REBALANCE_IN_PROGRESS');
      }),
      /REBALANCE_IN_PROGRESS/,
    );
    assert.equal(await commits.commit('orders', 0, '5', async () => undefined), true);
  });
});
