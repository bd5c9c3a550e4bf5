import { strict as assert } from 'node:assert';
import { z } from 'zod';
import { DLQ_HEADER } from '../../../src/events/dlq-message';
import { handleBatch } from '../../../src/kafka-bridge/partition-batch';
import { DEFAULT_ROUTES } from '../../../src/domains';
import type { Route } from '../../../src/events/routes';
import {
  FakeControls,
  batchOf,
  fakeDeps,
  kafkaMessage,
  orderCancelled,
  orderPlaced,
} from './batch-fakes';

const econnrefused = () =>
  Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** An extra route whose data schema is zod's own JSON type, as BRIDGE_EXTRA_ROUTES builds. */
function routesWith(eventType: string, dataSchema: z.ZodType<unknown>) {
  const route: Route = {
    eventType,
    workflowType: 'anyWorkflow',
    identity: 'event-id',
    dataSchema,
    workflowIdPrefix: eventType,
  };
  return new Map([...DEFAULT_ROUTES, [eventType, route]]);
}

function eventOf(offset: number, eventType: string, data: string) {
  return kafkaMessage(offset, {
    key: null,
    value: `{"data":${data}}`,
    headers: {
      'event-id': `e-${offset}`,
      'event-type': eventType,
      'aggregate-id': `agg-${offset}`,
      'content-type': 'application/json',
    },
  });
}

describe('handleBatch (with fakes)', () => {
  it('keeps a null-key cancellation behind its order: grouped by aggregate ID', async () => {
    const { deps, starter } = fakeDeps();
    starter.delayMs = (cmd) => (cmd.eventType === 'OrderPlaced' ? 30 : 0);
    const controls = new FakeControls();
    await handleBatch(
      batchOf([orderPlaced('o-1', 0, 1, null), orderCancelled('o-1', 1, 2, null)]),
      deps,
      controls,
    );
    assert.deepEqual(starter.log, [
      'begin OrderPlaced',
      'end OrderPlaced',
      'begin OrderCancelled',
      'end OrderCancelled',
    ]);
    assert.deepEqual(controls.commits, ['2']);
  });

  it('still runs different aggregates concurrently', async () => {
    const { deps, starter } = fakeDeps();
    starter.delayMs = () => 20;
    await handleBatch(
      batchOf([orderPlaced('o-1', 0, 1, null), orderPlaced('o-2', 1, 1, null)]),
      deps,
      new FakeControls(),
    );
    assert.deepEqual(starter.log.slice(0, 2), ['begin OrderPlaced', 'begin OrderPlaced']);
  });

  it('a translation that throws (deep JSON through z.json()) stays inside the message: the batch goes on', async () => {
    const { deps, starter, dlq } = fakeDeps({}, { routes: routesWith('Deep', z.json()) });
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const controls = new FakeControls();
    await handleBatch(batchOf([eventOf(0, 'Deep', deep), orderPlaced('o-1', 1)]), deps, controls);
    assert.equal(dlq.records.length, 1, 'the deep message is dead-lettered');
    assert.equal(starter.calls.length, 1, 'the order after it starts');
    assert.deepEqual(controls.commits, ['2']);
  });

  it('a translation that throws is processing-failed with the cause', async () => {
    const throwing = z.unknown().transform(() => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    const { deps, dlq } = fakeDeps({}, { routes: routesWith('Boom', throwing) });
    const controls = new FakeControls();
    await handleBatch(batchOf([eventOf(0, 'Boom', '{}')]), deps, controls);
    assert.equal(dlq.header(0, DLQ_HEADER.reason), 'processing-failed');
    assert.match(dlq.header(0, DLQ_HEADER.error)!, /translation threw: RangeError/);
    assert.deepEqual(controls.commits, ['1']);
  });

  it('commits only the contiguous handled prefix when stopped mid-outage', async () => {
    const { deps, starter } = fakeDeps();
    const controls = new FakeControls();
    starter.fail = (cmd) => {
      if (cmd.aggregateId !== 'o-0') return undefined;
      if (starter.calls.length > 5) controls.running = false;
      return econnrefused();
    };
    await handleBatch(
      batchOf([orderPlaced('o-0', 0), orderPlaced('o-1', 1), orderPlaced('o-2', 2)]),
      deps,
      controls,
    );
    assert.deepEqual(controls.resolved, [], 'offset 0 never handled, so nothing resolves');
    assert.deepEqual(controls.commits, []);
  });

  it('commits the prefix before a stuck message, not past it', async () => {
    const { deps, starter } = fakeDeps();
    const controls = new FakeControls();
    starter.fail = (cmd) => {
      if (cmd.aggregateId !== 'o-1') return undefined;
      if (starter.calls.length > 6) controls.running = false;
      return econnrefused();
    };
    await handleBatch(
      batchOf([orderPlaced('o-0', 0), orderPlaced('o-1', 1), orderPlaced('o-2', 2)]),
      deps,
      controls,
    );
    assert.deepEqual(controls.resolved, ['0']);
    assert.deepEqual(controls.commits, ['1']);
  });

  it('never commits for a partition it lost while handling', async () => {
    const { deps, starter } = fakeDeps();
    const controls = new FakeControls();
    starter.outcome = (cmd) => {
      if (cmd.aggregateId === 'o-1') controls.owned = false;
      return { kind: 'started', runId: 'r' };
    };
    await handleBatch(batchOf([orderPlaced('o-0', 0), orderPlaced('o-1', 1)]), deps, controls);
    assert.deepEqual(controls.commits, []);
  });

  it('falls back to per-message ledger lookups when the batch lookup is refused', async () => {
    const { deps, ledger, starter } = fakeDeps();
    // The batch query (several identities) is refused as a data exception; single ones work.
    ledger.failFindKnown = (call) =>
      call <= 3
        ? Object.assign(new Error('invalid byte sequence'), { code: '22021', severity: 'ERROR' })
        : undefined;
    const controls = new FakeControls();
    await handleBatch(batchOf([orderPlaced('o-0', 0), orderPlaced('o-1', 1)]), deps, controls);
    assert.equal(starter.calls.length, 2);
    assert.deepEqual(controls.commits, ['2']);
  });

  it('commits past trailing transaction markers once every message is handled: lag 0, stall 0', async () => {
    const { deps } = fakeDeps();
    const controls = new FakeControls();
    // Offsets 0 and 1 are orders; 2 is the transaction's commit marker KafkaJS does not hand over.
    await handleBatch(
      batchOf([orderPlaced('o-0', 0), orderPlaced('o-1', 1)], 'orders', 0, 1),
      deps,
      controls,
    );
    assert.deepEqual(controls.commits, ['3']);
    const text = await deps.metrics.registry.metrics();
    assert.match(text, /onceflow_bridge_consumer_lag\{topic="orders",partition="0"\} 0/);
    assert.match(
      text,
      /onceflow_bridge_partition_stalled_seconds\{topic="orders",partition="0"\} 0/,
    );
  });

  it('does not commit past the markers while a message of the batch is unhandled', async () => {
    const { deps, starter } = fakeDeps();
    const controls = new FakeControls();
    starter.fail = (cmd) => {
      if (cmd.aggregateId === 'o-1') {
        controls.running = false;
        return econnrefused();
      }
      return undefined;
    };
    await handleBatch(
      batchOf([orderPlaced('o-0', 0), orderPlaced('o-1', 1)], 'orders', 0, 1),
      deps,
      controls,
    );
    assert.deepEqual(controls.commits, ['1']);
    const text = await deps.metrics.registry.metrics();
    assert.match(text, /onceflow_bridge_consumer_lag\{topic="orders",partition="0"\} 2/);
  });

  it('reports a stalled partition while a message waits, and 0 once committed', async () => {
    const { deps, starter } = fakeDeps();
    const controls = new FakeControls();
    let stalledDuring = -1;
    starter.fail = (_cmd, call) => (call <= 3 ? econnrefused() : undefined);
    starter.delayMs = () => 15;
    const origHeartbeat = controls.heartbeat;
    controls.heartbeat = async () => {
      const [s] = deps.metrics.progress.stalls();
      stalledDuring = Math.max(stalledDuring, s?.seconds ?? -1);
      await origHeartbeat();
    };
    await handleBatch(batchOf([orderPlaced('o-0', 0)]), deps, controls);
    assert.ok(stalledDuring > 0, `stalled seconds grew while retrying (${stalledDuring})`);
    assert.deepEqual(
      deps.metrics.progress.stalls().map((s) => s.seconds),
      [0],
    );
    const text = await deps.metrics.registry.metrics();
    assert.match(
      text,
      /onceflow_bridge_partition_stalled_seconds\{topic="orders",partition="0"\} 0/,
    );
  });
});
