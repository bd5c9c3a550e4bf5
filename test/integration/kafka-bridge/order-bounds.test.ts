import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { buildEventMessage, type KafkaRecord } from '../../../src/events/event-message';
import { sampleOrderCancelled, sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { BridgeHarness } from '../../support/bridge-harness';

function placed(aggregateId: string, data: unknown, version = 1): KafkaRecord {
  return buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId,
    aggregateVersion: version,
    data,
  });
}

/** An order of one line; the total is kept consistent so only the bound is wrong. */
function oneLine(orderId: string, line: { sku: string; quantity: number }, customerId?: string) {
  const unitPriceMinor = 100;
  return {
    ...sampleOrderPlaced(orderId, customerId !== undefined ? { customerId } : {}),
    items: [{ ...line, unitPriceMinor }],
    totalMinor: line.quantity * unitPriceMinor,
  };
}

describe('bridge: order bounds and the order identity at the door', () => {
  let h: BridgeHarness;
  beforeEach(async () => {
    h = await new BridgeHarness().setUp(1);
  });
  afterEach(async () => {
    await h.tearDown();
  });

  it('dead-letters out-of-bound quantities, control characters in IDs and foreign orderIds, and starts nothing for them', async () => {
    const id = () => `o-${randomUUID()}`;
    const [huge, nulOrder, ctlCustomer, nulSku, owner, alias, cancelAlias, follower] = [
      id(),
      id(),
      id(),
      id(),
      id(),
      id(),
      id(),
      id(),
    ] as string[];
    const cases: Array<{ aggregateId: string; record: KafkaRecord; error: RegExp }> = [
      {
        aggregateId: huge!,
        // Today: starts, reserves nothing and parks on Postgres "integer out of range".
        record: placed(huge!, oneLine(huge!, { sku: 'SKU-1', quantity: 3_000_000_000 })),
        error: /data\.items\[0\]\.quantity: must be at most 1,000,000/,
      },
      {
        aggregateId: nulOrder!,
        record: placed(nulOrder!, sampleOrderPlaced(`${nulOrder!}\u0000`)),
        error: /data\.orderId: must not contain control characters/,
      },
      {
        aggregateId: ctlCustomer!,
        record: placed(
          ctlCustomer!,
          sampleOrderPlaced(ctlCustomer!, { customerId: 'c\u001b[31m' }),
        ),
        error: /data\.customerId: must not contain control characters/,
      },
      {
        aggregateId: nulSku!,
        record: placed(nulSku!, oneLine(nulSku!, { sku: 'SKU\u00001', quantity: 1 })),
        error: /data\.items\[0\]\.sku: must not contain control characters/,
      },
      {
        // A second aggregate whose data names the owner's order: today a second charge.
        aggregateId: alias!,
        record: placed(alias!, sampleOrderPlaced(owner!)),
        error: new RegExp(`data\\.orderId "${owner!}" must equal the aggregate ID "${alias!}"`),
      },
      {
        aggregateId: cancelAlias!,
        record: buildEventMessage({
          eventType: 'OrderCancelled',
          aggregateId: cancelAlias!,
          aggregateVersion: 2,
          data: sampleOrderCancelled(owner!),
        }),
        error: /^OrderCancelled: data\.orderId .* must equal the aggregate ID/,
      },
    ];
    await h.produce([
      placed(owner!, sampleOrderPlaced(owner!)),
      ...cases.map((c) => c.record),
      placed(follower!, sampleOrderPlaced(follower!)),
    ]);
    await h.startBridge();
    await h.waitUntilAllCommitted();

    const dlq = (await h.readDlq()).sort(
      (x, y) => Number(x.headers['dlq-source-offset']) - Number(y.headers['dlq-source-offset']),
    );
    assert.equal(dlq.length, cases.length, 'one DLQ record per case, none twice');
    dlq.forEach((m, i) => {
      const c = cases[i]!;
      assert.equal(m.key, c.aggregateId);
      assert.equal(m.headers['dlq-reason'], 'validation-failed', m.headers['dlq-error']);
      assert.match(m.headers['dlq-error']!, c.error);
      assert.equal(m.value, c.record.value, 'original value kept');
    });
    for (const c of cases) {
      const prefix = c.record.headers['event-type'] as string;
      const version = c.record.headers['aggregate-version'] as string;
      assert.equal(
        await h.describe(deriveWorkflowId(prefix, versionIdentity(c.aggregateId, Number(version)))),
        undefined,
        `no workflow for ${c.aggregateId}`,
      );
    }
    // The owner's own order and the message after the poison start as usual.
    assert.ok(await h.describe(deriveWorkflowId('OrderPlaced', versionIdentity(owner!, 1))));
    assert.ok(await h.describe(deriveWorkflowId('OrderPlaced', versionIdentity(follower!, 1))));
    assert.equal(await h.ledgerCount(), 2);
  });
});
