import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import type { KafkaMessage } from 'kafkajs';
import type { DlqReplayMark } from '../../../src/db/dlq-replay-store';
import { isMarkOf } from '../../../src/db/dlq-replay-store';
import type { DlqEntry } from '../../../src/kafka/dlq-reader';
import { readDlqStubLocator, type DlqStubLocator } from '../../../src/events/dlq-stub-format';
import { buildDlqStub } from '../../../src/kafka-bridge/dlq-stub';
import { planReplay } from '../../../src/ops/dlq-replay-plan';
import { isRefusedOutright } from '../../../src/ops/dlq-replay-send';
import { judgeOriginal, originalReplayHeaders } from '../../../src/ops/dlq-stub-originals';

const TS = '2026-11-24T10:00:00.000Z';

function entry(offset: number, over: Partial<DlqEntry> = {}): DlqEntry {
  return {
    dlqTopic: 'orders.dlq',
    partition: 0,
    offset: String(offset),
    timestamp: TS,
    key: Buffer.from(`k${offset}`),
    value: Buffer.from('x'),
    headers: {},
    stub: false,
    reason: 'unparseable',
    sourceTopic: 'orders',
    ...over,
  };
}

function mark(e: DlqEntry, state: DlqReplayMark['state'], over: Partial<DlqReplayMark> = {}) {
  return {
    dlqTopic: e.dlqTopic,
    partition: e.partition,
    offset: e.offset,
    timestamp: e.timestamp,
    state,
    sent: state === 'adopted' ? null : 'entry',
    targetTopic: 'orders',
    reason: e.reason ?? null,
    by: 'alice',
    recordedAt: TS,
    sentAt: state === 'sent' ? TS : null,
    attempts: 1,
    ...over,
  } satisfies DlqReplayMark;
}

describe('dlq replay: the plan', () => {
  it('sends unmarked and unconfirmed entries, skips sent and adopted ones, refuses without marking', () => {
    const [fresh, sent, adopted, sending, foreign, nowhere] = [
      entry(0),
      entry(1),
      entry(2),
      entry(3),
      entry(4, { sourceTopic: 'elsewhere' }),
      entry(5, { sourceTopic: undefined }),
    ];
    const marks = new Map<DlqEntry, DlqReplayMark>([
      [sent!, mark(sent!, 'sent')],
      [adopted!, mark(adopted!, 'adopted')],
      [sending!, mark(sending!, 'sending')],
    ]);
    const plan = planReplay(
      [fresh!, sent!, adopted!, sending!, foreign!, nowhere!],
      (e) => marks.get(e),
      new Set(['orders']),
    );
    assert.deepEqual(
      plan.send.map((s) => [s.entry.offset, s.resend]),
      [
        ['0', false],
        ['3', true],
      ],
    );
    assert.deepEqual(
      plan.already.map((e) => e.offset),
      ['1', '2'],
    );
    assert.deepEqual(
      plan.refused.map((r) => [r.entry.offset, r.kind]),
      [
        ['4', 'foreign-topic'],
        ['5', 'no-source'],
      ],
    );
    assert.match(plan.refused[0]!.refusal, /elsewhere is not in KAFKA_TOPICS/);
  });

  it('a mark of an earlier topic at the same offset (another timestamp) is not this entry’s', () => {
    const e = entry(7);
    assert.equal(isMarkOf(mark(e, 'sent'), e), true);
    assert.equal(isMarkOf(mark(e, 'sent', { timestamp: '2026-10-01T00:00:00.000Z' }), e), false);
  });
});

describe('dlq replay: a stub’s original', () => {
  const key = Buffer.from('order-1');
  const value = Buffer.from('{"data":{"orderId":"order-1"}}');
  const stub = buildDlqStub({
    message: { key, value, headers: { 'event-id': 'e1' } },
    topic: 'orders',
    partition: 2,
    offset: '41',
    reason: 'oversized',
    error: 'too big',
    refusal: 'MESSAGE_TOO_LARGE',
    failedAt: new Date(TS),
  });
  const locator = readDlqStubLocator(stub.message.value) as DlqStubLocator;
  const message = (k: Buffer | null, v: Buffer | null) =>
    ({
      key: k,
      value: v,
      headers: { 'event-id': Buffer.from('e1') },
      offset: '41',
    }) as unknown as KafkaMessage;

  it('the stub the bridge writes locates its original', () => {
    assert.deepEqual(locator.source, { topic: 'orders', partition: 2, offset: '41' });
    assert.equal(locator.value!.sha256, createHash('sha256').update(value).digest('hex'));
    assert.equal(readDlqStubLocator(Buffer.from('{"stub":true}')), undefined);
    assert.equal(readDlqStubLocator(Buffer.from('not json')), undefined);
  });

  it('is replayed only when key and value hash as the stub says', () => {
    const ok = judgeOriginal(locator, { found: true, message: message(key, value) });
    assert.equal(ok.found, true);
    const other = judgeOriginal(locator, {
      found: true,
      message: message(key, Buffer.from('{"data":{}}')),
    });
    assert.equal(other.found, false);
    assert.match((other as { refusal: string }).refusal, /not the stub's original/);
    const keyless = judgeOriginal(locator, { found: true, message: message(null, value) });
    assert.equal(keyless.found, false);
  });

  it('names why it is gone', () => {
    const deleted = judgeOriginal(locator, { found: false, why: 'deleted' });
    assert.match((deleted as { refusal: string }).refusal, /no longer holds.*retention/);
    const absent = judgeOriginal(locator, { found: false, why: 'absent' });
    assert.match((absent as { refusal: string }).refusal, /no record at orders partition 2/);
  });

  it('carries the failure age and count over, so a re-failure counts up', () => {
    const stubEntry = entry(9, { stub: true, firstFailedAt: TS, failureCount: '1' });
    const fresh = originalReplayHeaders({ 'event-id': 'e1', 'dlq-reason': 'x' }, stubEntry);
    assert.equal(fresh['dlq-first-failed-at'], TS);
    assert.equal(fresh['dlq-failure-count'], '1');
    assert.equal(fresh['dlq-reason'], undefined);
    assert.equal(fresh['event-id'], 'e1');
    const earlier = '2026-11-01T00:00:00.000Z';
    const replayedBefore = originalReplayHeaders(
      { 'dlq-first-failed-at': earlier, 'dlq-failure-count': '2' },
      stubEntry,
    );
    assert.equal(replayedBefore['dlq-first-failed-at'], earlier);
    assert.equal(replayedBefore['dlq-failure-count'], '3');
  });
});

describe('dlq replay: a send refused outright', () => {
  const protocol = (retriable: boolean) =>
    Object.assign(new Error('The request included a message larger than the max'), {
      name: 'KafkaJSProtocolError',
      retriable,
    });

  it('is a non-retriable protocol error or an encoding error, also wrapped', () => {
    assert.equal(isRefusedOutright(protocol(false)), true);
    const wrapped = Object.assign(new Error('wrapped'), {
      name: 'KafkaJSNonRetriableError',
      cause: protocol(false),
    });
    assert.equal(isRefusedOutright(wrapped), true);
    assert.equal(isRefusedOutright(new TypeError('bad header')), true);
  });

  it('is not a timeout, a lost connection or retries running out: the record may be appended', () => {
    assert.equal(isRefusedOutright(protocol(true)), false);
    const exhausted = Object.assign(new Error('retries'), {
      name: 'KafkaJSNumberOfRetriesExceeded',
      cause: protocol(true),
    });
    assert.equal(isRefusedOutright(exhausted), false);
    assert.equal(isRefusedOutright(new Error('Connection timeout')), false);
  });
});
