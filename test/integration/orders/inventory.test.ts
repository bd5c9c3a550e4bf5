import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { createInventoryActivities } from '../../../src/activities/inventory';
import { readStock, setStock } from '../../../src/inventory/stock-store';
import { findReservation } from '../../../src/inventory/reservation-store';
import { uniqueName } from '../../support/services';
import { createTestDatabase, type TestDatabase } from '../../support/providers';

describe('inventory activities (real Postgres)', () => {
  let db: TestDatabase;
  let inventory: ReturnType<typeof createInventoryActivities>;

  before(async () => {
    db = await createTestDatabase('inv');
    inventory = createInventoryActivities({ pool: db.pool });
  });
  after(async () => {
    await db.pool.end();
  });

  it('reserves in one transaction and a repeat of the key returns the first result', async () => {
    const sku = uniqueName('sku');
    await setStock(db.pool, sku, 5);
    const key = uniqueName('wf') + ':reserve';
    const first = await inventory.reserveInventory({
      key,
      orderId: 'o1',
      items: [{ sku, quantity: 2 }],
    });
    const again = await inventory.reserveInventory({
      key,
      orderId: 'o1',
      items: [{ sku, quantity: 2 }],
    });
    assert.equal(first.repeated, false);
    assert.equal(again.repeated, true);
    assert.deepEqual(again.items, first.items);
    assert.equal(await readStock(db.pool, sku), 3, 'stock decremented once');
  });

  it('fails with non-retryable OutOfStock and takes nothing from any line', async () => {
    const [a, b] = [uniqueName('sku'), uniqueName('sku')];
    await setStock(db.pool, a, 5);
    await setStock(db.pool, b, 1);
    const key = uniqueName('wf') + ':reserve';
    const err = await inventory
      .reserveInventory({
        key,
        orderId: 'o2',
        items: [
          { sku: a, quantity: 1 },
          { sku: b, quantity: 2 },
        ],
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof ApplicationFailure, String(err));
    assert.equal(err.type, 'OutOfStock');
    assert.equal(err.nonRetryable, true);
    assert.equal(await readStock(db.pool, a), 5);
    assert.equal(await readStock(db.pool, b), 1);
    assert.equal(await findReservation(db.pool, key), undefined, 'no reservation row remains');
  });

  it('lets exactly one of two racing reservations take the last unit', async () => {
    for (let round = 0; round < 5; round++) {
      const sku = uniqueName('last');
      await setStock(db.pool, sku, 1);
      const results = await Promise.allSettled(
        ['a', 'b'].map((who) =>
          inventory.reserveInventory({
            key: uniqueName(`wf-${who}`) + ':reserve',
            orderId: who,
            items: [{ sku, quantity: 1 }],
          }),
        ),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      assert.equal(won.length, 1, `round ${round}: one winner`);
      assert.equal((lost[0]!.reason as ApplicationFailure).type, 'OutOfStock');
      assert.equal(await readStock(db.pool, sku), 0);
    }
  });

  it('releases once, whichever key asks, and restores the stock', async () => {
    const sku = uniqueName('sku');
    await setStock(db.pool, sku, 4);
    const wf = uniqueName('wf');
    const reservationKey = `${wf}:reserve`;
    await inventory.reserveInventory({
      key: reservationKey,
      orderId: 'o3',
      items: [{ sku, quantity: 3 }],
    });
    const results = await Promise.all([
      inventory.releaseInventory({ key: `${wf}:release`, reservationKey }),
      inventory.releaseInventory({ key: `${wf}:release`, reservationKey }),
      inventory.releaseInventory({ key: `${wf}:cancel-release`, reservationKey }),
    ]);
    assert.equal(results.filter((r) => r.released && !r.repeated).length, 1);
    assert.equal(await readStock(db.pool, sku), 4, 'stock restored exactly once');
    const none = await inventory.releaseInventory({ key: 'x', reservationKey: 'missing' });
    assert.deepEqual(none, { released: false, repeated: false });
  });
});
