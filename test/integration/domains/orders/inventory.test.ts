import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { createInventoryActivities } from '../../../../src/domains/orders/activities/inventory';
import { ORDER_FAILURES } from '../../../../src/domains/orders/workflows/order-failures';
import {
  findOrderClaim,
  findOrderOwner,
  listOrderClaims,
} from '../../../../src/domains/orders/order-claim-store';
import type {
  ReserveResult,
  ReservedResult,
} from '../../../../src/domains/orders/inventory/inventory-service';
import { readOrderClaims } from '../../../../src/reconcile/sources';
import { readStock, setStock } from '../../../../src/domains/orders/inventory/stock-store';
import { findReservation } from '../../../../src/domains/orders/inventory/reservation-store';
import { uniqueName } from '../../../support/services';
import { createTestDatabase, type TestDatabase } from '../../../support/providers';

/** The result of a reservation the caller owns; fails the test on any other verdict. */
function owned(result: ReserveResult): ReservedResult {
  assert.equal(result.verdict, 'owner', JSON.stringify(result));
  return result as ReservedResult;
}

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
    const orderId = uniqueName('o1');
    const ask = {
      key,
      orderId,
      items: [{ sku, quantity: 2 }],
      workflowId: 'wf-1',
      fingerprint: 'f',
    };
    const first = owned(await inventory.reserveInventory(ask));
    const again = owned(await inventory.reserveInventory(ask));
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
        orderId: uniqueName('o2'),
        workflowId: 'wf-2',
        fingerprint: 'f',
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
            orderId: uniqueName(who),
            items: [{ sku, quantity: 1 }],
            workflowId: `wf-${who}`,
            fingerprint: 'f',
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
      orderId: uniqueName('o3'),
      items: [{ sku, quantity: 3 }],
      workflowId: wf,
      fingerprint: 'f',
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

  it('claims the order with the reservation: owner repeats, duplicates and conflicts act on nothing', async () => {
    const sku = uniqueName('sku');
    await setStock(db.pool, sku, 10);
    const orderId = uniqueName('claimed');
    const ask = (workflowId: string, fingerprint: string) =>
      inventory.reserveInventory({
        key: `order:${orderId}:reserve`,
        orderId,
        items: [{ sku, quantity: 2 }],
        workflowId,
        fingerprint,
      });
    owned(await ask('wf-owner', 'fp-a'));
    // The owner asking again (activity retry, replay, worker crash) is still the owner.
    assert.equal(owned(await ask('wf-owner', 'fp-a')).repeated, true);
    const duplicate = await ask('wf-resend', 'fp-a');
    assert.ok(duplicate.verdict === 'duplicate', JSON.stringify(duplicate));
    assert.equal(duplicate.owner.workflowId, 'wf-owner');
    const conflict = await ask('wf-other', 'fp-b');
    assert.ok(conflict.verdict === 'order-conflict', JSON.stringify(conflict));
    assert.equal(conflict.owner.fingerprint, 'fp-a');
    assert.equal(await readStock(db.pool, sku), 8, 'stock taken once');
    const claim = await findOrderClaim(db.pool, orderId);
    assert.equal(claim?.workflowId, 'wf-owner');
    assert.deepEqual(await findOrderOwner(db.pool, orderId), {
      workflowId: 'wf-owner',
      foundBy: 'claim',
      claim,
    });
    const listed = await listOrderClaims(db.pool, { prefix: orderId, schema: db.schema });
    assert.deepEqual(listed, [claim]);
    assert.deepEqual(await readOrderClaims(db.pool, db.schema, orderId), [claim], 'reconcile');
    // A run that does not own the order cannot release the owner's reservation.
    const refused = await inventory.releaseInventory({
      key: `order:${orderId}:release`,
      reservationKey: `order:${orderId}:reserve`,
      ownerWorkflowId: 'wf-resend',
    });
    assert.deepEqual(refused, { released: false, repeated: false, notOwner: 'wf-owner' });
    assert.equal(await readStock(db.pool, sku), 8);
  });

  it('a run cancelled after its reserve committed unrecorded returns the stock as it claims cancelled', async () => {
    const sku = uniqueName('sku');
    await setStock(db.pool, sku, 10);
    const orderId = uniqueName('unrecorded');
    const run = { orderId, workflowId: 'wf-owner', runId: 'run-1', fingerprint: 'fp-a' };
    // The reserve committed, but the workflow task that would have recorded it was lost.
    const key = `order:${orderId}:reserve`;
    owned(await inventory.reserveInventory({ ...run, key, items: [{ sku, quantity: 2 }] }));
    assert.equal(await readStock(db.pool, sku), 8);
    const verdict = await inventory.claimCancelledOrder(run);
    assert.equal(verdict.kind, 'owner');
    assert.equal(await readStock(db.pool, sku), 10, 'the unrecorded reservation is returned');
    const reservation = await findReservation(db.pool, key);
    assert.equal(reservation?.status, 'released');
    assert.equal(reservation?.releaseKey, `order:${orderId}:release`);
    // Asked again (an activity retry), and by another run: nothing more is returned.
    await inventory.claimCancelledOrder(run);
    const other = await inventory.claimCancelledOrder({ ...run, workflowId: 'wf-2', runId: 'r2' });
    assert.equal(other.kind, 'duplicate');
    assert.equal(await readStock(db.pool, sku), 10);
  });

  it('a claim written before run IDs: its own run adopts it, a run of its ID started later is a duplicate', async () => {
    const sku = uniqueName('sku');
    await setStock(db.pool, sku, 10);
    const orderId = uniqueName('legacy');
    // As an older worker claimed it, an hour ago: no run ID, nothing settled.
    await db.pool.query(
      `INSERT INTO entity_claims (domain, entity_id, workflow_id, fingerprint, claimed_at)
       VALUES ('orders', $1, 'wf-legacy', 'f', now() - interval '1 hour')`,
      [orderId],
    );
    const ask = (runId: string, startedAt: Date) =>
      inventory.reserveInventory({
        key: `order:${orderId}:reserve`,
        orderId,
        items: [{ sku, quantity: 2 }],
        workflowId: 'wf-legacy',
        runId,
        startedAt: startedAt.toISOString(),
        fingerprint: 'f',
      });
    // A run of the same workflow ID started days after the claim: a re-read, not the owner.
    const later = await ask('run-later', new Date());
    assert.equal(later.verdict, 'duplicate', JSON.stringify(later));
    assert.equal((await findOrderClaim(db.pool, orderId))?.runId, undefined, 'not adopted');
    // The run that started before the claim (its reserve retried after a crash) owns it.
    owned(await ask('run-owner', new Date(Date.now() - 2 * 3_600_000)));
    assert.equal((await findOrderClaim(db.pool, orderId))?.runId, 'run-owner', 'adopted');
    // From now on the run ID decides, whatever the start time says.
    assert.equal((await ask('run-later', new Date(0))).verdict, 'duplicate');
    assert.equal(await readStock(db.pool, sku), 8);
  });

  it('out of stock rolls the claim back; racing claimers get one owner', async () => {
    const sku = uniqueName('sku');
    await setStock(db.pool, sku, 1);
    const rejected = uniqueName('rejected');
    await assert.rejects(
      inventory.reserveInventory({
        key: `order:${rejected}:reserve`,
        orderId: rejected,
        items: [{ sku, quantity: 5 }],
        workflowId: 'wf-r',
        fingerprint: 'f',
      }),
      (err: unknown) => {
        // A business outcome the workflow branches on: typed, not retryable, with the numbers.
        assert.ok(err instanceof ApplicationFailure, String(err));
        assert.equal(err.type, ORDER_FAILURES.outOfStock);
        assert.equal(err.nonRetryable, true);
        assert.deepEqual(err.details, [{ sku, requested: 5, available: 1 }]);
        return true;
      },
    );
    assert.equal(await findOrderClaim(db.pool, rejected), undefined, 'no claim for a rejection');
    assert.equal(await readStock(db.pool, sku), 1, 'no stock taken');

    await setStock(db.pool, sku, 100);
    const orderId = uniqueName('raced');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        inventory.reserveInventory({
          key: `order:${orderId}:reserve`,
          orderId,
          items: [{ sku, quantity: 1 }],
          workflowId: `wf-${i}`,
          fingerprint: 'f',
        }),
      ),
    );
    assert.equal(results.filter((r) => r.verdict === 'owner').length, 1);
    assert.equal(results.filter((r) => r.verdict === 'duplicate').length, 5);
    assert.equal(await readStock(db.pool, sku), 99);
  });
});
