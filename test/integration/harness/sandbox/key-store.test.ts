import { strict as assert } from 'node:assert';
import { reapExpiredKeys } from '../../../../harness/sandbox/key-store';
import type { LedgerView } from '../../../../harness/sandbox/admin-routes';
import type { RunningProviders } from '../../../../harness/sandbox/server';
import { waitFor } from '../../../../src/util/wait';
import { uniqueName } from '../../../support/services';
import { adminHeaders } from '../../../../src/reconcile/provider-ledger';
import {
  createTestDatabase,
  getJson,
  postJson,
  setFaults,
  startTestProviders,
  TEST_ADMIN_TOKEN,
  type TestDatabase,
} from '../../../support/providers';

const ADMIN = adminHeaders(TEST_ADMIN_TOKEN);

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
    getJson<{ state: string; lease_expires_at: string | null; expires_at: string }>(
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

  it('forgets a key as a real provider does: after its retention the same request charges again', async () => {
    const p = await start({ keyTtlMs: 60_000 });
    const key = uniqueName('k');
    const first = await postJson(`${p.url}/v1/charges`, key, charge('o-5'));
    assert.equal(first.status, 201);
    assert.equal(await reapExpiredKeys(db.pool), 0, 'nothing has expired yet');
    const replayed = await postJson(`${p.url}/v1/charges`, key, charge('o-5'));
    assert.equal(replayed.replayed, true, 'within its retention the key replays');
    const reaped = await reapExpiredKeys(db.pool, new Date(Date.now() + 120_000));
    assert.ok(reaped >= 1, `reaped ${reaped}`);
    await assert.rejects(keyRow(p, 'charges', key), /404/);
    const again = await postJson(`${p.url}/v1/charges`, key, charge('o-5'));
    assert.equal(again.status, 201);
    assert.equal(again.replayed, false);
    assert.notEqual(
      again.body.id,
      first.body.id,
      'a second charge: nothing else remembers the key',
    );
    assert.equal((await ledgerOfKey(p, key)).charges.length, 2);
  });

  it('treats a key past its retention as unseen even before the reaper runs', async () => {
    // A 1 s retention and no reaper: the row is still there, expired.
    const p = await start({ keyTtlMs: 1000 });
    const key = uniqueName('k');
    const mail = { to: 'a@example.com', subject: 'hi', body: 'x', orderId: uniqueName('o') };
    const first = await postJson(`${p.url}/v1/emails`, key, mail);
    assert.equal(first.status, 202);
    await waitFor(
      async () => {
        const row = await keyRow(p, 'emails', key);
        return Date.parse(String(row.expires_at)) < Date.now() - 50;
      },
      { timeoutMs: 10_000, what: 'the key to pass its retention' },
    );
    const again = await postJson(`${p.url}/v1/emails`, key, mail);
    assert.equal(again.status, 202);
    assert.equal(again.replayed, false);
    assert.notEqual(again.body.id, first.body.id, 'the mail is sent a second time');
    assert.equal((await ledgerOfKey(p, key)).emails.length, 2);
  });

  it('forgets keys now through POST /admin/keys/expire (by key, by prefix, by scope), admin only', async () => {
    const p = await start();
    const prefix = `${uniqueName('order')}:`;
    const chargeKey = `${prefix}charge`;
    const emailKey = `${prefix}email`;
    const other = uniqueName('k');
    await postJson(`${p.url}/v1/charges`, chargeKey, charge('o-9'));
    await postJson(`${p.url}/v1/emails`, emailKey, { to: 'a@x.example', subject: 's', body: 'b' });
    await postJson(`${p.url}/v1/charges`, other, charge('o-10'));

    const expire = (body: unknown, headers: Record<string, string> = ADMIN) =>
      fetch(`${p.url}/admin/keys/expire`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    // Refused without the admin token, and with a malformed body; nothing forgotten.
    assert.equal((await expire({ prefix }, {})).status, 401);
    assert.equal((await expire({ keys: 'not-a-list' })).status, 400);
    assert.equal((await keyRow(p, 'charges', chargeKey)).state, 'completed');
    const byPrefix = await expire({ prefix });
    assert.deepEqual(await byPrefix.json(), { expired: 2 });
    await assert.rejects(keyRow(p, 'charges', chargeKey), /404/);
    await assert.rejects(keyRow(p, 'emails', emailKey), /404/);
    assert.equal((await keyRow(p, 'charges', other)).state, 'completed', 'only the prefix');
    const byKey = await expire({ keys: [other], scope: 'emails' });
    assert.deepEqual(await byKey.json(), { expired: 0 }, 'scope narrows');
    const byKeyAndScope = await expire({ keys: [other], scope: 'charges' });
    assert.deepEqual(await byKeyAndScope.json(), { expired: 1 });
    const again = await postJson(`${p.url}/v1/charges`, chargeKey, charge('o-9'));
    assert.equal(again.replayed, false);
    assert.equal((await ledgerOfKey(p, chargeKey)).charges.length, 2, 'charged again');
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
