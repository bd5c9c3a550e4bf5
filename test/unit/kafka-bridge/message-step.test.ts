import { strict as assert } from 'node:assert';
import { KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import pino from 'pino';
import { DLQ_HEADER } from '../../../src/events/dlq-message';
import { DLQ_STUB_HEADER, type DlqStubValue } from '../../../src/kafka-bridge/dlq-stub';
import { ABANDON_GRACE_MS } from '../../../src/kafka-bridge/dependency-call';
import { waitFor } from '../../../src/util/wait';
import { LedgerView } from '../../../src/kafka-bridge/ledger-view';
import {
  handleMessage,
  translateSafely,
  type BatchItem,
  type StepContext,
} from '../../../src/kafka-bridge/message-step';
import {
  FakeControls,
  counterSum,
  fakeDeps,
  kafkaMessage,
  orderPlaced,
  type FakeDlq,
  type FakeLedger,
  type FakeStarter,
} from './batch-fakes';

const econnrefused = () =>
  Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
const tooLarge = () =>
  new KafkaJSProtocolError({
    type: 'MESSAGE_TOO_LARGE',
    code: 10,
    retriable: false,
    message: 'too large',
  } as never);

function setUp() {
  const parts = fakeDeps();
  const controls = new FakeControls();
  const ctx: StepContext = {
    topic: 'orders',
    partition: 0,
    deps: parts.deps,
    controls,
    view: new LedgerView(parts.ledger),
    log: pino({ level: 'silent' }),
  };
  const item = (message = orderPlaced('o-1', 7)): BatchItem => ({
    message,
    index: 0,
    translation: translateSafely(message, parts.deps.routes, parts.deps.translateOptions),
  });
  return { ...parts, controls, ctx, item };
}

describe('message step (per-message outcome, with fakes)', () => {
  let s: ReturnType<typeof setUp>;
  let ledger: FakeLedger;
  let starter: FakeStarter;
  let dlq: FakeDlq;
  beforeEach(() => {
    s = setUp();
    ({ ledger, starter, dlq } = s);
  });

  it('starts a valid event and returns its ledger row for the batch to write', async () => {
    const outcome = await handleMessage(s.item(), s.ctx);
    assert.equal(outcome.kind, 'started');
    assert.equal(starter.calls.length, 1);
    assert.deepEqual(starter.calls[0]!.source, { topic: 'orders', partition: 0, offset: '7' });
    const cmd = starter.calls[0]!.cmd;
    assert.ok('row' in outcome);
    assert.deepEqual(outcome.row, {
      identity: cmd.identity,
      eventType: 'OrderPlaced',
      eventId: cmd.eventId,
      aggregateId: 'o-1',
      aggregateVersion: 1,
      fingerprint: cmd.fingerprint,
      workflowId: cmd.workflowId,
      runId: `run-${cmd.workflowId}`,
      sourceTopic: 'orders',
      sourcePartition: 0,
      sourceOffset: '7',
    });
    assert.equal(ledger.rows.size, 0, 'the step itself writes nothing (ledger-writes.ts does)');
    assert.equal(dlq.records.length, 0);
  });

  it('returns the row of a start Temporal already had (the ledger did not know it)', async () => {
    starter.outcome = () => ({ kind: 'duplicate', runId: 'run-earlier' });
    const outcome = await handleMessage(s.item(), s.ctx);
    assert.equal(outcome.kind, 'duplicate');
    assert.ok('row' in outcome && outcome.source === 'temporal');
    assert.equal(outcome.row.runId, 'run-earlier');
  });

  it('deduplicates against the ledger without a start', async () => {
    const first = await handleMessage(s.item(), s.ctx);
    assert.ok('row' in first);
    const again = setUp();
    again.ledger.rows.set(first.row.identity, first.row);
    const outcome = await handleMessage(again.item(), again.ctx);
    assert.deepEqual(outcome, { kind: 'duplicate', source: 'ledger' });
    assert.equal(again.starter.calls.length, 0);
  });

  it('dead-letters poison with its reason and source', async () => {
    const outcome = await handleMessage(
      s.item(kafkaMessage(3, { key: 'k', value: 'not json' })),
      s.ctx,
    );
    assert.equal(outcome.kind, 'dead-lettered');
    assert.equal(dlq.records.length, 1);
    assert.equal(dlq.header(0, DLQ_HEADER.reason), 'unparseable');
    assert.equal(dlq.header(0, DLQ_HEADER.sourceOffset), '3');
  });

  it('retries a transient error (dependency down) beyond the attempt bound, heartbeating, then starts', async () => {
    starter.fail = (_cmd, call) => (call <= 6 ? econnrefused() : undefined);
    const outcome = await handleMessage(s.item(), s.ctx);
    assert.equal(outcome.kind, 'started');
    assert.equal(starter.calls.length, 7);
    assert.equal(dlq.records.length, 0);
    assert.ok(s.controls.heartbeats > 0, 'heartbeats while waiting');
    assert.equal(await counterSum(s.deps.metrics.transientRetries, { dependency: 'temporal' }), 6);
  });

  it('dead-letters as processing-failed with the real cause after 3 non-transient failures', async () => {
    starter.fail = () => new TypeError('cannot read properties of undefined');
    const outcome = await handleMessage(s.item(), s.ctx);
    assert.deepEqual(outcome, { kind: 'dead-lettered', reason: 'processing-failed', stub: false });
    assert.equal(starter.calls.length, 3);
    assert.equal(dlq.header(0, DLQ_HEADER.reason), 'processing-failed');
    assert.match(dlq.header(0, DLQ_HEADER.error)!, /cannot read properties of undefined/);
    assert.equal(ledger.rows.size, 0);
  });

  it('takes an unknown error for the message after 3 tries, never for an outage forever', async () => {
    ledger.failFindKnown = () => new Error('something nobody classified');
    const outcome = await handleMessage(s.item(), s.ctx);
    assert.equal(outcome.kind, 'dead-lettered');
    assert.equal(dlq.header(0, DLQ_HEADER.reason), 'processing-failed');
    assert.match(dlq.header(0, DLQ_HEADER.error)!, /unknown .*something nobody classified/);
  });

  it('writes a stub record when the DLQ refuses the full record as too large', async () => {
    dlq.fail = (record) => (record.message.headers[DLQ_STUB_HEADER.stub] ? undefined : tooLarge());
    const outcome = await handleMessage(
      s.item(kafkaMessage(9, { key: 'k', value: 'x'.repeat(5000) })),
      s.ctx,
    );
    assert.deepEqual(outcome, { kind: 'dead-lettered', reason: 'unparseable', stub: true });
    assert.equal(dlq.attempts, 4, 'three refused full writes, then the stub');
    assert.equal(dlq.header(0, DLQ_HEADER.reason), 'unparseable');
    assert.equal(dlq.header(0, DLQ_STUB_HEADER.stub), 'true');
    assert.match(dlq.header(0, DLQ_STUB_HEADER.cause)!, /MESSAGE_TOO_LARGE/);
    const body = JSON.parse(dlq.records[0]!.message.value!.toString()) as DlqStubValue;
    assert.equal(body.value?.size, 5000);
    assert.equal(await counterSum(s.deps.metrics.dlqStubs), 1);
  });

  it('writes a stub record when the DLQ producer cannot encode a header (TypeError)', async () => {
    dlq.fail = (record) =>
      record.message.headers[DLQ_STUB_HEADER.stub]
        ? undefined
        : Object.assign(new KafkaJSNonRetriableError(new TypeError('x')), {
            cause: new TypeError('The "string" argument must be of type string'),
          });
    const outcome = await handleMessage(s.item(kafkaMessage(2, { key: null, value: '' })), s.ctx);
    assert.equal(outcome.kind, 'dead-lettered');
    assert.equal(dlq.header(0, DLQ_STUB_HEADER.stub), 'true');
  });

  it('keeps retrying a DLQ that is down (transient), never stubbing', async () => {
    dlq.fail = (_r, attempt) => (attempt <= 5 ? econnrefused() : undefined);
    const outcome = await handleMessage(s.item(kafkaMessage(2, { key: null, value: '' })), s.ctx);
    assert.deepEqual(outcome, { kind: 'dead-lettered', reason: 'unparseable', stub: false });
    assert.equal(dlq.records[0]!.message.headers[DLQ_STUB_HEADER.stub], undefined);
  });

  it('leaves the message (retry) when stopped during an outage', async () => {
    starter.fail = (_cmd, call) => {
      if (call === 3) s.controls.running = false;
      return econnrefused();
    };
    const outcome = await handleMessage(s.item(), s.ctx);
    assert.deepEqual(outcome, { kind: 'retry' });
    assert.equal(dlq.records.length, 0);
    assert.equal(ledger.rows.size, 0);
  });

  it('never dead-letters for a partition it no longer owns', async () => {
    s.controls.owned = false;
    const outcome = await handleMessage(s.item(kafkaMessage(2, { key: null, value: '' })), s.ctx);
    assert.deepEqual(outcome, { kind: 'retry' });
    assert.equal(dlq.attempts, 0);
  });

  it('heartbeats during a long call and abandons it soon after the partition is lost', async () => {
    // A hung start, bounded so that a step that never abandons it fails here, not by timeout.
    let hang: NodeJS.Timeout | undefined;
    starter.hold = () => new Promise((r) => (hang = setTimeout(r, 10_000)));
    // The partition is lost once the hung call has been kept alive by two heartbeats.
    let lostAt: number | undefined;
    const heartbeat = s.controls.heartbeat;
    s.controls.heartbeat = async () => {
      await heartbeat();
      if (s.controls.heartbeats >= 2 && lostAt === undefined) {
        s.controls.owned = false;
        lostAt = Date.now();
      }
    };
    try {
      const outcome = await handleMessage(s.item(), s.ctx);
      assert.deepEqual(outcome, { kind: 'retry' }, 'abandoned, not waited for');
      assert.ok(lostAt !== undefined, 'heartbeats during the call');
      const waited = Date.now() - lostAt;
      assert.ok(
        waited < ABANDON_GRACE_MS + 1000,
        `not waiting for the hung call (${waited} ms after the loss)`,
      );
      assert.equal(dlq.attempts, 0);
    } finally {
      clearTimeout(hang);
    }
  });

  it('lets a call that finishes within the grace keep its result after the partition is lost', async () => {
    let lossSeen = false;
    const owns = s.controls.ownsPartition;
    s.controls.ownsPartition = () => {
      const owned = owns();
      if (!owned) lossSeen = true;
      return owned;
    };
    // The partition is lost while the start is in flight; the start returns as soon as the
    // step has seen the loss, well within the grace.
    starter.hold = async () => {
      s.controls.owned = false;
      await waitFor(() => lossSeen, {
        timeoutMs: ABANDON_GRACE_MS,
        intervalMs: 10,
        what: 'the step to notice the lost partition',
      });
    };
    const outcome = await handleMessage(s.item(), s.ctx);
    assert.equal(outcome.kind, 'started', 'the start is kept: its row goes to the ledger');
  });

  it('dead-letters a start Temporal rejects (INVALID_ARGUMENT) as start-rejected', async () => {
    starter.outcome = () => ({ kind: 'rejected', error: 'workflow id too long' });
    const outcome = await handleMessage(s.item(), s.ctx);
    assert.equal(outcome.kind, 'dead-lettered');
    assert.equal(dlq.header(0, DLQ_HEADER.reason), 'start-rejected');
  });
});
