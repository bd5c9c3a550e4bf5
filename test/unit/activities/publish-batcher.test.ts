import { strict as assert } from 'node:assert';
import type { Message, Producer, ProducerRecord, RecordMetadata } from 'kafkajs';
import { createPublishBatcher, recordBytes } from '../../../src/activities/publish-batcher';

/**
 * A producer whose sends wait until the test lets them go, answering as Kafka does: one
 * RecordMetadata per partition with the base offset of the records it took. Records go to the
 * partition their key names (`p<n>`).
 */
function fakeProducer() {
  const sends: Array<{ record: ProducerRecord; release: (err?: Error) => void }> = [];
  const nextOffset = new Map<number, number>();
  const partitionOf = (m: Message) => Number(String(m.key).slice(1));
  const producer = {
    send: (record: ProducerRecord) =>
      new Promise<RecordMetadata[]>((resolve, reject) => {
        sends.push({
          record,
          release: (err) => {
            if (err) return reject(err);
            const out = new Map<number, RecordMetadata>();
            for (const m of record.messages) {
              const p = partitionOf(m);
              const base = nextOffset.get(p) ?? 100 * p;
              if (!out.has(p))
                out.set(p, {
                  topicName: record.topic,
                  partition: p,
                  errorCode: 0,
                  baseOffset: String(base),
                });
              nextOffset.set(p, base + 1);
            }
            resolve([...out.values()]);
          },
        });
      }),
  } as unknown as Producer;
  return { producer, sends, partitionOf };
}

const tick = () => new Promise((r) => setImmediate(r));
const record = (partition: number, value = 'x'): Message => ({ key: `p${partition}`, value });

describe('publish batcher: steps publishing at once share a request', () => {
  it('sends a lone record at once, and the records that arrive meanwhile in one request after it', async () => {
    const { producer, sends, partitionOf } = fakeProducer();
    const batcher = createPublishBatcher({ producer: async () => producer, partitionOf });
    const first = batcher.send('t', record(0));
    await tick();
    assert.equal(sends.length, 1, 'the first record leaves without waiting');
    const queued = [record(0), record(1), record(0), record(2)].map((m) => batcher.send('t', m));
    await tick();
    assert.equal(sends.length, 1, 'nothing else leaves while a send is in flight');
    sends[0]!.release();
    assert.deepEqual(await first, { partition: 0, offset: '0' });
    await tick();
    assert.equal(sends.length, 2);
    assert.equal(sends[1]!.record.messages.length, 4, 'the four queued records share one request');
    sends[1]!.release();
    // Offsets follow the batch's order within each partition.
    assert.deepEqual(await Promise.all(queued), [
      { partition: 0, offset: '1' },
      { partition: 1, offset: '100' },
      { partition: 0, offset: '2' },
      { partition: 2, offset: '200' },
    ]);
  });

  it('keeps one topic per request and the sum of record sizes under the limit', async () => {
    const { producer, sends, partitionOf } = fakeProducer();
    const batcher = createPublishBatcher({
      producer: async () => producer,
      partitionOf,
      maxBatchBytes: 25,
    });
    const all = [
      batcher.send('a', record(0)),
      batcher.send('a', record(0, 'v'.repeat(10))),
      batcher.send('b', record(0)),
      batcher.send('a', record(0, 'v'.repeat(10))),
      batcher.send('a', record(0, 'v'.repeat(10))),
    ];
    for (let i = 0; i < 4; i++) {
      await tick();
      sends[i]!.release();
    }
    await Promise.all(all);
    assert.deepEqual(
      sends.map((s) => [s.record.topic, s.record.messages.length]),
      [
        ['a', 1],
        ['a', 2], // 13 + 13 bytes would pass 25: the second waits
        ['b', 1],
        ['a', 1],
      ],
    );
    assert.equal(recordBytes({ key: 'p0', value: 'xyz', headers: { h: 'ab' } }), 8);
  });

  it('fails every record of a request with an error a retry may resolve', async () => {
    const { producer, sends, partitionOf } = fakeProducer();
    const batcher = createPublishBatcher({ producer: async () => producer, partitionOf });
    const first = batcher.send('t', record(0));
    const both = [batcher.send('t', record(1)), batcher.send('t', record(2))];
    await tick();
    sends[0]!.release();
    await first;
    await tick();
    sends[1]!.release(Object.assign(new Error('not enough replicas'), { retriable: true }));
    for (const p of both) await assert.rejects(p, /not enough replicas/);
    assert.equal(sends.length, 2, 'a transient failure is the step retry to handle, not ours');
  });

  it("sends a request refused for good again one record each: one record's fault is not another's", async () => {
    const { producer, sends, partitionOf } = fakeProducer();
    const batcher = createPublishBatcher({ producer: async () => producer, partitionOf });
    const first = batcher.send('t', record(0));
    const good = batcher.send('t', record(1));
    const bad = batcher.send('t', record(2));
    await tick();
    sends[0]!.release();
    await first;
    await tick();
    sends[1]!.release(Object.assign(new Error('record too large'), { retriable: false }));
    await tick();
    sends[2]!.release();
    assert.deepEqual(await good, { partition: 1, offset: '100' });
    await tick();
    sends[3]!.release(Object.assign(new Error('record too large'), { retriable: false }));
    await assert.rejects(bad, /record too large/);
    assert.deepEqual(
      sends.map((s) => s.record.messages.length),
      [1, 2, 1, 1],
    );
  });

  it('sends one record per request when the producer cannot say where records went', async () => {
    const { producer, sends } = fakeProducer();
    const batcher = createPublishBatcher({ producer: async () => producer });
    const all = [0, 1, 2].map((p) => batcher.send('t', record(p)));
    for (let i = 0; i < 3; i++) {
      await tick();
      sends[i]!.release();
    }
    assert.deepEqual(await Promise.all(all), [
      { partition: 0, offset: '0' },
      { partition: 1, offset: '100' },
      { partition: 2, offset: '200' },
    ]);
    assert.deepEqual(
      sends.map((s) => s.record.messages.length),
      [1, 1, 1],
    );
  });
});
