import { strict as assert } from 'node:assert';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { findClaim } from '../../../src/db/entity-claim-store';
import { waitFor } from '../../../src/util/wait';
import type { SagaStatus } from '../../../src/workflows/saga-status';
import type { FaultMode } from '../../support/domains/seams/activities';
import { approveSeam } from '../../support/domains/seams/approval';
import type { SeamData } from '../../support/domains/seams/steps';
import { createSeamsEnv, type SeamsEnv } from '../../support/seams-env';
import { uniqueName } from '../../support/services';

/**
 * Temporal's history limits, lowered on a server of this file's own: a run that kept its
 * waits in history would be told to continue as new within seconds (and terminated soon
 * after), which is where a body replayed against a journal of its own broke. A run of today's
 * engine keeps a wait in one activity and never comes near either limit.
 */
const LIMITS = {
  'limit.historyCount.suggestContinueAsNew': 40,
  'limit.historyCount.warn': 200,
  'limit.historyCount.error': 400,
};

describe('a run at its seams (seams test domain, own dev server with lowered history limits)', function () {
  this.timeout(240_000);
  let env: SeamsEnv;
  before(async () => {
    env = await createSeamsEnv(LIMITS);
  });
  after(async () => {
    await env?.close();
  });
  afterEach(async () => {
    env.settleFails = false;
    await env.db.pool.query('DELETE FROM faults');
  });
  const historyLength = async (h: WorkflowHandle) => (await h.describe()).historyLength;
  const fault = (what: string, mode: FaultMode | undefined, windowMs = 60_000) =>
    env.fault(what, mode, { windowMs, intervalMs: 500 });
  const callsOf = (id: string) => env.callsOf(id);
  const effectsOf = (id: string) => env.effectsOf(id);
  const start = (workflow: string, data: SeamData) => env.start(workflow, data);
  const until = (h: WorkflowHandle, p: (s: SagaStatus) => boolean, what: string) =>
    env.until(h, p, what);

  it('1. a business failure the body caught stays caught through a long wait: charged once, by the backup, and shipped', async () => {
    const id = uniqueName('fallback');
    await fault('charge', 'decline');
    await fault('ship', 'outage');
    const h = await start('fallback', { id });
    await until(h, (s) => s.waiting?.step === 'ship', 'ship waiting on the outage');
    // Long enough that a run keeping its waits in history passes the suggested limit.
    await waitFor(
      async () =>
        (await callsOf(id)).filter((c) => c.what === 'ship').length >= 12 ? true : undefined,
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        what: 'ship to be tried a dozen times',
      },
    );
    await fault('ship', undefined);
    const result = await h.result();
    assert.equal(result.outcome, 'completed');
    assert.equal(result.paidBy, 'backup');
    assert.equal(
      result.shipped,
      `ship@seam:${id}:ship`,
      "ship answered with its own result, not backup's",
    );
    const calls = (await callsOf(id)).map((c) => c.what);
    assert.equal(calls.filter((c) => c === 'charge').length, 1, 'the declined charge ran once');
    assert.deepEqual(await effectsOf(id), ['backup', 'ship']);
    assert.ok((await historyLength(h)) < LIMITS['limit.historyCount.suggestContinueAsNew'] * 2);
  });

  it('2. branches that interleave keep their own calls: c runs and answers, d runs once, each undo its own', async () => {
    const id = uniqueName('branches');
    // a is slow, so b then d finish first; then c waits on an outage.
    await fault('a', 'hold');
    await fault('c', 'outage');
    const h = await start('branches', { id });
    await waitFor(async () => ((await effectsOf(id)).includes('d') ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'b and d done while a is held',
    });
    await fault('a', undefined);
    await until(h, (s) => s.waiting?.step === 'c', 'c waiting');
    await waitFor(
      async () =>
        (await callsOf(id)).filter((c) => c.what === 'c').length >= 12 ? true : undefined,
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        what: 'c to be tried a dozen times',
      },
    );
    await h.cancel();
    await assert.rejects(
      h.result(),
      (err: unknown) => err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure,
    );
    const calls = (await callsOf(id)).map((c) => c.what);
    assert.equal(calls.filter((c) => c === 'd').length, 1, 'd ran once');
    assert.deepEqual(
      calls.filter((c) => c.startsWith('undo-')),
      ['undo-c', 'undo-d', 'undo-b', 'undo-a'].filter((u) => calls.includes(u)),
      'each undo once',
    );
    assert.deepEqual(
      (await effectsOf(id)).filter((e) => e.startsWith('undo-')).sort(),
      ['undo-a', 'undo-b', 'undo-c', 'undo-d'],
      "c's undo ran (its outcome was unknown), as did every other",
    );
  });

  it('3. a step per item: each item its own key and its own undo', async () => {
    const id = uniqueName('items');
    const h = await start('items', { id: `${id}-abandon`, skus: ['apple', 'pear'] });
    const result = await h.result();
    assert.equal(result.outcome, 'abandoned');
    assert.deepEqual(await effectsOf(`${id}-abandon`), [
      'release:apple',
      'release:pear',
      'reserve:apple',
      'reserve:pear',
    ]);
    const calls = await callsOf(`${id}-abandon`);
    assert.deepEqual(
      calls.map((c) => c.key.slice(`seam:${id}-abandon:`.length)),
      ['reserve:apple', 'reserve:pear', 'release:pear', 'release:apple'],
    );
  });

  it('4. a cancel while the settlement waits on a database outage compensates, settles cancelled and closes Canceled', async () => {
    const id = uniqueName('settled');
    env.settleFails = true;
    const h = await start('settled', { id });
    await until(h, (s) => s.waiting?.step === 'settle', 'the settlement waiting on the database');
    await h.cancel();
    env.settleFails = false;
    await assert.rejects(
      h.result(),
      (err: unknown) => err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure,
    );
    assert.deepEqual(await effectsOf(id), ['charge', 'refund']);
    const claim = await findClaim(env.db.pool, { domain: 'seams', entityId: id });
    assert.equal(claim?.settled, 'cancelled');
  });

  it('5. once the unwind began, a sibling that fails transiently stops: no provider call after its attempt in flight', async () => {
    const id = uniqueName('siblings');
    await fault('a', 'outage');
    await fault('b', 'hold');
    const h = await start('siblings', { id });
    await until(h, (s) => s.waiting?.step === 'a', 'a waiting');
    await waitFor(
      async () => ((await callsOf(id)).some((c) => c.what === 'b') ? true : undefined),
      {
        timeoutMs: 30_000,
        intervalMs: 100,
        what: 'b in flight',
      },
    );
    await h.cancel();
    // b's attempt in flight now fails on an outage; nothing may call b again.
    await fault('b', 'outage', 120_000);
    await assert.rejects(
      h.result(),
      (err: unknown) => err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure,
    );
    const calls = (await callsOf(id)).map((c) => c.what);
    assert.equal(
      calls.filter((c) => c === 'b').length,
      1,
      'b was called once: its attempt in flight, none after',
    );
    assert.deepEqual(
      calls.filter((c) => c.startsWith('undo-')).sort(),
      ['undo-a', 'undo-b'],
      'both undone once (their outcomes unknown)',
    );
  });

  it("6. a signal that arrives while an earlier step waits is the wait's answer; one without a payload is a signal, not a deadline", async () => {
    const id = uniqueName('approval');
    await fault('prepare', 'outage');
    const h = await start('approval', { id });
    await until(h, (s) => s.waiting?.step === 'prepare', 'prepare waiting');
    await waitFor(
      async () =>
        (await callsOf(id)).filter((c) => c.what === 'prepare').length >= 12 ? true : undefined,
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        what: 'prepare to be tried a dozen times',
      },
    );
    await h.signal(approveSeam, { by: 'ada' });
    await fault('prepare', undefined);
    const result = await h.result();
    assert.equal(result.outcome, 'completed', 'approved, not expired after an hour');
    assert.equal(result.approvedBy, 'ada');
    const bare = await start('approval', { id: uniqueName('approval-bare') });
    await until(bare, (s) => s.step === 'awaiting_approval', 'the wait');
    await bare.signal(approveSeam, undefined);
    assert.equal((await bare.result()).approvedBy, 'a signal without a payload');
  });
});
