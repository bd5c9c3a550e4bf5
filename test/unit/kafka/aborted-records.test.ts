import { strict as assert } from 'node:assert';
import { findAbortedRecords, type FetchedRecord } from '../../../src/kafka/aborted-records';
import { createRequire } from 'node:module';
import type { Batch } from 'kafkajs';
import { correctFetchResponse, readableEndOf } from '../../../src/kafka/kafka-fetch-patch';

/** KafkaJS's own Batch (what eachBatch receives), built from a fetch response's partition. */
const KafkaBatch = createRequire(__filename)('kafkajs/src/consumer/batch') as new (
  topic: string,
  fetchedOffset: string,
  partitionData: object,
) => Batch;

/** Builds one partition's fetched records as KafkaJS decodes them, batch by batch. */
class Log {
  readonly records: FetchedRecord[] = [];
  private next = 0;

  constructor(start = 0) {
    this.next = start;
  }

  /** A data batch of `count` records from `producerId` (transactional unless said otherwise). */
  data(producerId: string, count: number, options: { inTransaction?: boolean; key?: Buffer } = {}) {
    const batchContext = {
      firstOffset: String(this.next),
      lastOffsetDelta: count - 1,
      producerId,
      inTransaction: options.inTransaction ?? true,
      isControlBatch: false,
    };
    for (let i = 0; i < count; i++)
      this.records.push({
        offset: String(this.next++),
        key: options.key ?? Buffer.from(`k${this.next}`),
        batchContext,
      });
    return this;
  }

  /** A control batch: the transaction marker of `producerId`. */
  marker(producerId: string, type: 'abort' | 'commit') {
    const key = Buffer.alloc(4);
    key.writeInt16BE(type === 'abort' ? 0 : 1, 2);
    this.records.push({
      offset: String(this.next),
      key,
      isControlRecord: true,
      batchContext: {
        firstOffset: String(this.next++),
        lastOffsetDelta: 0,
        producerId,
        inTransaction: true,
        isControlBatch: true,
      },
    });
    return this;
  }
}

const offsetsOf = (records: Set<FetchedRecord>) => [...records].map((r) => Number(r.offset));

describe('findAbortedRecords (read_committed, as Kafka’s Java consumer)', () => {
  it('finds nothing without aborted transactions in the response', () => {
    const log = new Log().data('7', 3).marker('7', 'commit');
    assert.equal(findAbortedRecords(log.records, []).size, 0);
    assert.equal(findAbortedRecords(log.records, null).size, 0);
  });

  it('finds the records of an aborted transaction and nothing after its marker', () => {
    const log = new Log().data('7', 3).marker('7', 'abort').data('7', 2).marker('7', 'commit');
    const aborted = findAbortedRecords(log.records, [{ producerId: '7', firstOffset: '0' }]);
    assert.deepEqual(offsetsOf(aborted), [0, 1, 2]);
  });

  it('leaves non-transactional records of the same producer id and other producers alone', () => {
    const log = new Log()
      .data('7', 2)
      .data('8', 2)
      .data('-1', 1, { inTransaction: false })
      .data('7', 1)
      .marker('7', 'abort')
      .marker('8', 'commit');
    const aborted = findAbortedRecords(log.records, [{ producerId: '7', firstOffset: '0' }]);
    assert.deepEqual(offsetsOf(aborted), [0, 1, 5]);
  });

  it('a fetch that starts inside two producers’ aborted transactions drops both (KafkaJS passed one record)', () => {
    // Producer 1 began at offset 0, producer 2 at 1; this fetch starts at 40, in producer 2's records.
    const log = new Log(40).data('2', 5).data('1', 1).marker('1', 'abort').marker('2', 'abort');
    const aborted = findAbortedRecords(log.records, [
      { producerId: '2', firstOffset: '1' },
      { producerId: '1', firstOffset: '0' },
    ]);
    assert.deepEqual(offsetsOf(aborted), [40, 41, 42, 43, 44, 45]);
  });

  it('a data record keyed with four zero bytes is not a marker (KafkaJS delivered the rest of its transaction)', () => {
    const log = new Log()
      .data('7', 1)
      .data('7', 1, { key: Buffer.alloc(4) })
      .data('7', 2)
      .marker('7', 'abort');
    const aborted = findAbortedRecords(log.records, [{ producerId: '7', firstOffset: '0' }]);
    assert.deepEqual(offsetsOf(aborted), [0, 1, 2, 3]);
  });

  it('a second aborted transaction of one producer in the same fetch is found again', () => {
    const log = new Log()
      .data('7', 2)
      .marker('7', 'abort')
      .data('7', 2)
      .marker('7', 'commit')
      .data('7', 2)
      .marker('7', 'abort');
    const aborted = findAbortedRecords(log.records, [
      { producerId: '7', firstOffset: '6' },
      { producerId: '7', firstOffset: '0' },
    ]);
    assert.deepEqual(offsetsOf(aborted), [0, 1, 6, 7]);
  });
});

describe('KafkaJS 2.2’s own aborted-record filter (why kafka-fetch-patch.ts replaces it)', () => {
  // When one of these fails, KafkaJS filters like Kafka's Java consumer: drop the patch.
  const kafkajsFilter = createRequire(__filename)(
    'kafkajs/src/consumer/filterAbortedMessages',
  ) as (args: { messages: FetchedRecord[]; abortedTransactions: object[] }) => FetchedRecord[];
  const delivered = (log: Log, abortedTransactions: object[]) =>
    kafkajsFilter({ messages: log.records, abortedTransactions })
      .filter((m) => !m.isControlRecord)
      .map((m) => Number(m.offset));

  it('passes the first record of a fetch that starts inside two aborted transactions', () => {
    const log = new Log(40).data('2', 5).data('1', 1).marker('1', 'abort').marker('2', 'abort');
    assert.deepEqual(
      delivered(log, [
        { producerId: '1', firstOffset: '0' },
        { producerId: '2', firstOffset: '1' },
      ]),
      [40],
    );
  });

  it('passes the rest of an aborted transaction after a record keyed with four zero bytes', () => {
    const log = new Log()
      .data('7', 1)
      .data('7', 1, { key: Buffer.alloc(4) })
      .data('7', 2)
      .marker('7', 'abort');
    assert.deepEqual(delivered(log, [{ producerId: '7', firstOffset: '0' }]), [1, 2, 3]);
  });
});

describe('correctFetchResponse', () => {
  it('flags aborted records so KafkaJS hides them, empties its list, keeps the markers', () => {
    const log = new Log().data('7', 2).marker('7', 'abort').data('8', 1).marker('8', 'commit');
    const partition = {
      highWatermark: '5',
      lastStableOffset: '5',
      abortedTransactions: [{ producerId: '7', firstOffset: '0' }],
      messages: log.records,
    };
    correctFetchResponse({ responses: [{ partitions: [partition] }] });
    assert.deepEqual(partition.abortedTransactions, []);
    assert.deepEqual(
      partition.messages.filter((m) => !m.isControlRecord).map((m) => m.offset),
      ['3'],
      'only the committed record is left for KafkaJS to hand over',
    );
    assert.equal(partition.messages.length, 5, 'every record still counts for lastOffset()');
  });

  it('gives KafkaJS’s Batch only committed data, its last offset past the markers, and the last stable offset', () => {
    // 0-1 aborted, 2 its marker, 3 committed, 4 its marker; a transaction opened at 5 (not fetched).
    const log = new Log().data('7', 2).marker('7', 'abort').data('8', 1).marker('8', 'commit');
    const partition = {
      partition: 0,
      highWatermark: '9',
      lastStableOffset: '5',
      abortedTransactions: [{ producerId: '7', firstOffset: '0' }],
      messages: log.records,
    };
    correctFetchResponse({ responses: [{ partitions: [partition] }] });
    const batch = new KafkaBatch('orders', '0', partition);
    assert.deepEqual(
      batch.messages.map((m) => m.offset),
      ['3'],
    );
    assert.equal(batch.lastOffset(), '4');
    assert.equal(readableEndOf(batch), '5', 'the last stable offset, not the high watermark');
  });

  it('a fetch of nothing but aborted records and markers is one KafkaJS passes over, not one it refetches', () => {
    const log = new Log().data('7', 3).marker('7', 'abort');
    const partition = {
      partition: 0,
      highWatermark: '4',
      lastStableOffset: '4',
      abortedTransactions: [{ producerId: '7', firstOffset: '0' }],
      messages: log.records,
    };
    correctFetchResponse({ responses: [{ partitions: [partition] }] });
    const batch = new KafkaBatch('orders', '0', partition) as Batch & {
      isEmptyDueToFiltering(): boolean;
    };
    assert.equal(batch.isEmpty(), true);
    assert.equal(batch.isEmptyDueToFiltering(), true, 'KafkaJS resolves past such a fetch');
    assert.equal(batch.lastOffset(), '3');
  });

  it('without a last stable offset (older fetch versions) the readable end is the high watermark', () => {
    const partition = {
      partition: 0,
      highWatermark: '2',
      lastStableOffset: '-1',
      abortedTransactions: [],
      messages: new Log().data('-1', 2, { inTransaction: false }).records,
    };
    correctFetchResponse({ responses: [{ partitions: [partition] }] });
    assert.equal(readableEndOf(new KafkaBatch('orders', '0', partition)), '2');
  });
});
