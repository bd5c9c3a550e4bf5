import { strict as assert } from 'node:assert';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { windowRecordOf } from '../../../src/kafka-bridge/batch-intake';
import { LedgerWriteQueue } from '../../../src/kafka-bridge/ledger-write-queue';
import { OpenRuns } from '../../../src/kafka-bridge/open-runs';
import { PartitionFlow } from '../../../src/kafka-bridge/partition-flow';
import { StartScheduler } from '../../../src/kafka-bridge/start-scheduler';
import { translateSafely } from '../../../src/kafka-bridge/message-step';
import type { BatchItem } from '../../../src/kafka-bridge/step-context';
import { batchOf, fakeDeps, FakeControls, kafkaMessage } from './batch-fakes';

/** Tenant `merchant`'s order at `offset` as the window takes it. */
function orderOf(offset: number, merchant: string, orderId = `${merchant}-${offset}`) {
  const r = buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: 1,
    data: sampleOrderPlaced(orderId, { merchantId: merchant }),
  });
  return kafkaMessage(offset, { ...r, key: orderId });
}

function recordsOf(
  messages: ReturnType<typeof orderOf>[],
  deps: ReturnType<typeof fakeDeps>['deps'],
) {
  return messages.map((message, index) => {
    const item: BatchItem = {
      message,
      index,
      translation: translateSafely(message, deps.routes, deps.translateOptions),
    };
    return windowRecordOf(item, false);
  });
}

function schedulerWith(
  deps: ReturnType<typeof fakeDeps>['deps'],
  options: { concurrency: number; openRuns?: OpenRuns; flow?: PartitionFlow; records?: number },
) {
  const commits: string[] = [];
  const scheduler = new StartScheduler({
    concurrency: options.concurrency,
    limits: { records: options.records ?? 10_000, bytes: 1 << 30 },
    weightOf: () => 1,
    ...(options.openRuns ? { openRuns: options.openRuns } : {}),
    ...(options.flow ? { flow: options.flow } : {}),
    pauses: deps.metrics.pauses,
    commit: async (_run, offset) => void commits.push(String(offset)),
    log: deps.log,
  });
  const controls = new FakeControls();
  const run = scheduler.runFor({
    topic: 'orders',
    partition: 0,
    lease: { generation: 1, valid: () => true },
    deps,
    controls,
    ledgerQueue: new LedgerWriteQueue(deps.ledger, { maxDelayMs: 1 }),
    log: deps.log,
  });
  return { scheduler, run, commits };
}

describe('StartScheduler (with fakes)', () => {
  it("a quiet tenant's event behind a flood on its partition starts among the first, not after the flood", async () => {
    const { deps, starter } = fakeDeps();
    starter.delayMs = () => 2;
    const { scheduler, run } = schedulerWith(deps, { concurrency: 2 });
    const flood = Array.from({ length: 200 }, (_, i) => orderOf(i, 'a'));
    const quiet = orderOf(200, 'b');
    await scheduler.admit(run, recordsOf([...flood, quiet], deps), 201n);
    await waitUntil(() => starter.calls.length === 201);
    const at = starter.calls.findIndex((c) => c.cmd.aggregateId === 'b-200');
    assert.ok(at < 4, `b's order started as start number ${at + 1}, behind the flood`);
    await scheduler.stop();
  });

  it('a tenant at its open-run cap waits in the window; the others go; a close lets it go on', async () => {
    const { deps, starter } = fakeDeps();
    const openRuns = new OpenRuns({ total: 0, perTenant: 3, background: 0 });
    const { scheduler, run } = schedulerWith(deps, { concurrency: 8, openRuns });
    const messages = [...Array.from({ length: 10 }, (_, i) => orderOf(i, 'a')), orderOf(10, 'b')];
    await scheduler.admit(run, recordsOf(messages, deps), 11n);
    await waitUntil(() => starter.calls.length === 4);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      starter.calls.map((c) => c.cmd.tenant).sort(),
      ['a', 'a', 'a', 'b'],
      'three of a (its cap), and b',
    );
    openRuns.noteClosed(starter.calls.find((c) => c.cmd.tenant === 'a')!.cmd.workflowId);
    scheduler.wake();
    await waitUntil(() => starter.calls.length === 5);
    await scheduler.stop();
  });

  it('pauses a partition whose window is full and resumes it below half; commits the handled prefix', async () => {
    const { deps, starter } = fakeDeps();
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    starter.hold = () => held;
    const calls: string[] = [];
    const flow = new PartitionFlow({
      pause: () => void calls.push('pause'),
      resume: () => void calls.push('resume'),
    });
    const { scheduler, run, commits } = schedulerWith(deps, { concurrency: 4, flow, records: 8 });
    await scheduler.admit(
      run,
      recordsOf(
        Array.from({ length: 8 }, (_, i) => orderOf(i, 'a')),
        deps,
      ),
      8n,
    );
    assert.deepEqual(calls, ['pause'], 'full at 8 records');
    release();
    await waitUntil(() => calls.at(-1) === 'resume');
    await scheduler.stop();
    assert.equal(commits.at(-1), '8', 'everything handled: committed to the fetch position');
  });
});

describe('StartScheduler: waits on the environment (with fakes)', function () {
  this.timeout(20_000);

  it("a start merely slow gives up its slot: another partition's start goes ahead", async () => {
    const { deps, starter } = fakeDeps();
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    starter.hold = (cmd) => (cmd.aggregateId === 'a-0' ? held : Promise.resolve());
    const { scheduler, run } = schedulerWith(deps, { concurrency: 1 });
    const other = scheduler.runFor({
      topic: 'orders',
      partition: 1,
      lease: { generation: 1, valid: () => true },
      deps,
      controls: new FakeControls(),
      ledgerQueue: new LedgerWriteQueue(deps.ledger, { maxDelayMs: 1 }),
      log: deps.log,
    });
    await scheduler.admit(run, recordsOf([orderOf(0, 'a')], deps), 1n);
    await scheduler.admit(other, recordsOf([orderOf(0, 'b')], deps), 1n);
    // One slot: a-0 holds it until it has been in flight for SLOW_CALL_MS, then lets it go.
    await waitUntil(() => starter.calls.some((c) => c.cmd.aggregateId === 'b-0'), 10_000);
    assert.equal(starter.calls.find((c) => c.cmd.aggregateId === 'a-0')?.endedAt, undefined);
    release();
    await scheduler.stop();
  });

  it("a start waiting on a fault (Temporal refused) holds its partition's next starts back, not another partition's", async () => {
    const { deps, starter } = fakeDeps();
    let down = true;
    starter.fail = (cmd) =>
      down && cmd.aggregateId === 'a-0'
        ? Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
        : undefined;
    const { scheduler, run } = schedulerWith(deps, { concurrency: 4 });
    const other = scheduler.runFor({
      topic: 'orders',
      partition: 1,
      lease: { generation: 1, valid: () => true },
      deps,
      controls: new FakeControls(),
      ledgerQueue: new LedgerWriteQueue(deps.ledger, { maxDelayMs: 1 }),
      log: deps.log,
    });
    await scheduler.admit(run, recordsOf([orderOf(0, 'a')], deps), 1n);
    await waitUntil(() => starter.calls.length >= 2, 10_000);
    await scheduler.admit(run, recordsOf([orderOf(1, 'a')], deps), 2n);
    await scheduler.admit(other, recordsOf([orderOf(0, 'b')], deps), 1n);
    await waitUntil(() => starter.calls.some((c) => c.cmd.aggregateId === 'b-0'));
    assert.ok(
      !starter.calls.some((c) => c.cmd.aggregateId === 'a-1'),
      "partition 0's next order waits while its first retries a fault",
    );
    down = false;
    await waitUntil(() => starter.calls.some((c) => c.cmd.aggregateId === 'a-1'), 10_000);
    await scheduler.stop();
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 1));
  }
}

void batchOf;
