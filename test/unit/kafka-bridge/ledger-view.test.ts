import { strict as assert } from 'node:assert';
import { LedgerView } from '../../../src/kafka-bridge/ledger-view';
import { translateSafely } from '../../../src/kafka-bridge/message-step';
import type { StartCommand } from '../../../src/events/translate';
import { FakeLedger, fakeDeps, orderPlaced } from './batch-fakes';

function startOf(orderId: string, version = 1): StartCommand {
  const { deps } = fakeDeps();
  const t = translateSafely(orderPlaced(orderId, 0, version), deps.routes, deps.translateOptions);
  assert.equal(t.kind, 'start');
  return t as StartCommand;
}

describe('LedgerView: one batch of ledger facts', () => {
  it('answers a prefetched batch from memory, without a query per message', async () => {
    const ledger = new FakeLedger();
    const known = startOf('o-known', 3);
    ledger.rows.set(known.identity, {
      identity: known.identity,
      eventType: known.eventType,
      eventId: known.eventId,
      aggregateId: known.aggregateId,
      aggregateVersion: 3,
      fingerprint: known.fingerprint,
      workflowId: known.workflowId,
      runId: 'r-1',
      sourceTopic: 'orders',
      sourcePartition: 0,
      sourceOffset: '0',
    });
    const fresh = startOf('o-fresh');
    const view = new LedgerView(ledger);
    assert.equal(view.prefetchedFacts(fresh), undefined, 'nothing before the prefetch');
    await view.prefetch([known, fresh]);
    const calls = { ...ledger.calls };
    assert.deepEqual(view.prefetchedFacts(fresh), { known: undefined, highest: undefined });
    const facts = view.prefetchedFacts(known);
    assert.equal(facts?.known?.runId, 'r-1');
    assert.equal(facts?.highest, 3);
    assert.deepEqual(await view.lookup(known), facts, 'lookup gives the same facts');
    assert.deepEqual(ledger.calls, calls, 'no query after the prefetch');
  });

  it('without a prefetch, lookup queries for the one command and remembers the answer', async () => {
    const ledger = new FakeLedger();
    const cmd = startOf('o-1', 2);
    const view = new LedgerView(ledger);
    assert.deepEqual(await view.lookup(cmd), { known: undefined, highest: undefined });
    assert.equal(ledger.calls.findKnown, 1);
    assert.equal(ledger.calls.highestVersions, 1);
    assert.equal(view.prefetchedFacts(cmd), undefined, 'still not prefetched');
    view.remember(cmd, 'r-2');
    const after = await view.lookup(cmd);
    assert.equal(after.known?.runId, 'r-2');
    assert.equal(after.highest, 2);
  });

  it("a CloudEvent keyed without its source by an older bridge: the same event is a duplicate, another source's is new", async () => {
    const cmd: StartCommand = {
      ...startOf('o-ce'),
      identity: 'e:/shop\u001fevt-9',
      formerIdentity: 'e:evt-9',
    };
    const rowOf = (fingerprint: string, eventType = cmd.eventType) => ({
      identity: 'e:evt-9',
      eventType,
      eventId: 'evt-9',
      aggregateId: cmd.aggregateId,
      fingerprint,
      workflowId: 'OrderPlaced:e:evt-9',
      runId: 'r-old',
      sourceTopic: 'orders',
      sourcePartition: 0,
      sourceOffset: '0',
    });
    for (const [row, expected] of [
      [rowOf(cmd.fingerprint), 'r-old'],
      [rowOf('another payload'), undefined],
      [rowOf(cmd.fingerprint, 'OrderCancelled'), undefined],
    ] as const) {
      const ledger = new FakeLedger();
      ledger.rows.set('e:evt-9', row);
      const prefetched = new LedgerView(ledger);
      await prefetched.prefetch([cmd]);
      assert.equal(prefetched.prefetchedFacts(cmd)?.known?.runId, expected);
      assert.equal((await new LedgerView(ledger).lookup(cmd)).known?.runId, expected);
    }
  });
});
