import { strict as assert } from 'node:assert';
import { reapExpiredKeys } from '../../../src/sandbox/key-store';
import type { LedgerView } from '../../../src/sandbox/admin-routes';
import type { RunningProviders } from '../../../src/sandbox/server';
import { waitFor } from '../../../src/util/wait';
import { uniqueName } from '../../support/services';
import {
  createTestDatabase,
  getJson,
  postJson,
  setFaults,
  startTestProviders,
  type TestDatabase,
} from '../../support/providers';

function charge(orderId: string, amountMinor = 1250) {
  return { orderId, customerId: 'cus_1', amountMinor, currency: 'EUR' };
}

describe('sandbox providers: idempotency key store (real Postgres, real HTTP)', () => {
  let db: TestDatabase;
  const running: RunningProviders[] = [];

  before(async () => {
    db = await createTestDatabase('prov');
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.close()));
  });
  after(async () => {
    await db.pool.end();
  });

  async function start(options: Parameters<typeof startTestProviders>[1] = {}) {
    const p = await startTestProviders(db, options);
    running.push(p);
    return p;
  }
  const ledgerOfKey = (p: RunningProviders, key: string) =>
    getJson<LedgerView>(`${p.url}/admin/ledger?key=${encodeURIComponent(key)}`);
  const keyRow = (p: RunningProviders, scope: string, key: string) =>
    getJson<{ state: string; lease_expires_at: string | null }>(
      `${p.url}/admin/keys?scope=${scope}&key=${encodeURIComponent(key)}`,
    );

  it('replays the stored response for the same key and request; one charge', async () => {
    const p = await start();
    const key = uniqueName('k');
    const first = await postJson(`${p.url}/v1/charges`, key, charge('o-1'));
    const second = await postJson(`${p.url}/v1/charges`, key, charge('o-1'));
    assert.equal(first.status, 201);
    assert.equal(first.replayed, false);
    assert.equal(second.status, 201);
    assert.equal(second.replayed, true);
    assert.deepEqual(second.body, first.body);
    assert.equal((await ledgerOfKey(p, key)).charges.length, 1);
  });

  it('answers 422 when a key is reused with a different request', async () => {
    const p = await start();
    const key = uniqueName('k');
    assert.equal((await postJson(`${p.url}/v1/charges`, key, charge('o-2'))).status, 201);
    const reused = await postJson(`${p.url}/v1/charges`, key, charge('o-2', 999));
    assert.equal(reused.status, 422);
    assert.deepEqual(
      (await ledgerOfKey(p, key)).charges.map((c) => c.amountMinor),
      [1250],
    );
  });

  it('answers 409 while the first request holds its lease, then serves the first', async () => {
    const p = await start({ faults: { endpoints: { charges: { latencyMs: 1500 } } } });
    const key = uniqueName('k');
    const first = postJson(`${p.url}/v1/charges`, key, charge('o-3'));
    await waitFor(() => keyRow(p, 'charges', key), { timeoutMs: 5000, what: 'the key claimed' });
    const concurrent = await postJson(`${p.url}/v1/charges`, key, charge('o-3'));
    assert.equal(concurrent.status, 409);
    assert.equal((await first).status, 201);
    assert.equal((await ledgerOfKey(p, key)).charges.length, 1);
  });

  it('lets a request take over an expired lease; the stale holder cannot commit', async () => {
    const p = await start({
      leaseMs: 300,
      faults: { endpoints: { charges: { latencyMs: 1500 } } },
    });
    const key = uniqueName('k');
    const stale = postJson(`${p.url}/v1/charges`, key, charge('o-4'));
    await waitFor(
      async () => {
        const row = await keyRow(p, 'charges', key);
        const expiry = row.lease_expires_at ? Date.parse(row.lease_expires_at) : Infinity;
        return row.state === 'started' && expiry < Date.now();
      },
      { timeoutMs: 5000, intervalMs: 50, what: 'the lease to expire' },
    );
    const takeover = await postJson(`${p.url}/v1/charges`, key, charge('o-4'));
    const staleResult = await stale;
    assert.equal(takeover.status, 201);
    assert.equal(staleResult.status, 409, 'the request whose lease expired is rolled back');
    const ledger = await ledgerOfKey(p, key);
    assert.equal(ledger.charges.length, 1);
    assert.equal(ledger.charges[0]!.id, takeover.body.id);
  });

  it('reaps expired keys and keeps the ledger as the last guard', async () => {
    const p = await start({ keyTtlMs: 60_000 });
    const key = uniqueName('k');
    const first = await postJson(`${p.url}/v1/charges`, key, charge('o-5'));
    assert.equal(await reapExpiredKeys(db.pool), 0, 'nothing has expired yet');
    const reaped = await reapExpiredKeys(db.pool, new Date(Date.now() + 120_000));
    assert.ok(reaped >= 1, `reaped ${reaped}`);
    await assert.rejects(keyRow(p, 'charges', key), /404/);
    const again = await postJson(`${p.url}/v1/charges`, key, charge('o-5'));
    assert.equal(again.body.id, first.body.id, 'the ledger row answers for the reaped key');
    assert.equal((await ledgerOfKey(p, key)).charges.length, 1);
  });

  it('declines (402) by rule and replays the decline; nothing charged', async () => {
    const p = await start();
    const key = uniqueName('k');
    const body = { ...charge('o-6'), customerId: 'declined-cus' };
    const first = await postJson(`${p.url}/v1/charges`, key, body);
    const second = await postJson(`${p.url}/v1/charges`, key, body);
    assert.equal(first.status, 402);
    assert.equal(second.status, 402);
    assert.equal(second.replayed, true);
    assert.equal((await ledgerOfKey(p, key)).charges.length, 0);
  });

  it('injects failure before commit (nothing charged) and timeout after commit (charged)', async () => {
    const p = await start();
    await setFaults(p, { seed: 7, endpoints: { charges: { failBeforeCommitRate: 1, limit: 1 } } });
    const key = uniqueName('k');
    const failed = await postJson(`${p.url}/v1/charges`, key, charge('o-7'));
    assert.equal(failed.status, 500);
    assert.equal((await ledgerOfKey(p, key)).charges.length, 0);
    assert.equal((await postJson(`${p.url}/v1/charges`, key, charge('o-7'))).status, 201);

    await setFaults(p, { endpoints: { charges: { timeoutAfterCommitRate: 1, limit: 1 } } });
    const key2 = uniqueName('k');
    await assert.rejects(postJson(`${p.url}/v1/charges`, key2, charge('o-8')));
    assert.equal((await ledgerOfKey(p, key2)).charges.length, 1, 'the effect committed');
    const retry = await postJson(`${p.url}/v1/charges`, key2, charge('o-8'));
    assert.equal(retry.replayed, true);
    assert.equal((await ledgerOfKey(p, key2)).charges[0]!.id, retry.body.id);
  });

  it('refunds a charge once, whatever key asks, and sends and looks up emails', async () => {
    const p = await start();
    const orderId = uniqueName('o');
    await postJson(`${p.url}/v1/charges`, uniqueName('k'), charge(orderId));
    const r1 = await postJson(`${p.url}/v1/refunds`, uniqueName('k'), { orderId });
    const r2 = await postJson(`${p.url}/v1/refunds`, uniqueName('k'), { orderId });
    assert.equal(r1.status, 201);
    assert.equal(r2.body.alreadyRefunded, true);
    const noCharge = await postJson(`${p.url}/v1/refunds`, uniqueName('k'), { orderId: 'none' });
    assert.equal(noCharge.status, 404);
    const mail = { to: 'a@example.com', subject: 'hi', body: 'x', orderId };
    assert.equal((await postJson(`${p.url}/v1/emails`, uniqueName('k'), mail)).status, 202);
    const ledger = await getJson<LedgerView>(`${p.url}/admin/ledger?orderId=${orderId}`);
    assert.equal(ledger.refunds.length, 1);
    assert.equal(ledger.emails.length, 1);
  });
});
