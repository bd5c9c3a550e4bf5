import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DOMAINS } from '../../../../src/domains';
import { payout } from '../../../../src/domains/payouts/workflows';
import { approvePayoutUpdate } from '../../../../src/domains/payouts/workflows/payout-names';
import { recordHistory, replayHistories, HistoryReplayError } from '../../../../src/index';
import { cancelSignal, type SagaStatus } from '../../../../src/workflow';
import { waitFor } from '../../../../src/util/wait';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../../support/order-env';
import { newPayout } from '../../../support/payout-data';
import { uniqueName } from '../../../support/services';

/**
 * The replay guard of the payout domain, a workflow as code on the engine's own claim (the
 * path every new domain takes), kept with the public helpers a team uses (recordHistory,
 * replayHistories): every way a payout goes, recorded once as JSON fixtures, replays on the
 * code as it is. Rewrite them with `RECORD_HISTORIES=1` when a change is meant to change the
 * commands (docs/deploying.md).
 */
const FIXTURES = resolve(__dirname, '../../../fixtures/histories/payouts');
const EXPECTED = [
  'approved.json',
  'cancelled.json',
  'completed.json',
  'duplicate.json',
  'refused.json',
  'temporal-cancelled.json',
];

describe('payout workflows replay deterministically (recordHistory, replayHistories)', function () {
  this.timeout(240_000);
  let env: OrderEnv;
  before(async () => {
    env = await createOrderEnv();
  });
  after(async () => {
    await env.close();
  });

  it('replays every recorded way a payout goes, and a folder with a broken history fails by name', async () => {
    if (process.env.RECORD_HISTORIES) {
      rmSync(FIXTURES, { recursive: true, force: true });
      mkdirSync(FIXTURES, { recursive: true });
      const start = (data = newPayout()) =>
        env.client.workflow.start(payout, {
          taskQueue: env.taskQueue,
          workflowId: uniqueName(`PayoutRequested:${data.payoutId}`),
          args: [eventInputOf('PayoutRequested', data.payoutId, data)],
        });
      const record = async (name: string, h: { workflowId: string }) =>
        recordHistory({ client: env.client, workflowId: h.workflowId, file: join(FIXTURES, name) });
      const data = newPayout();
      const done = await start(data);
      await done.result();
      await record('completed.json', done);
      const again = await start(data);
      await again.result();
      await record('duplicate.json', again);
      const refused = await start(newPayout({ beneficiaryId: 'blocked_1' }));
      await refused.result();
      await record('refused.json', refused);
      const approved = await start(newPayout({ amountMinor: 2_000_000 }));
      await waitFor(async () => (await approved.query<SagaStatus>('status')).pausedFor, {
        timeoutMs: 30_000,
        what: 'the approval wait',
      });
      await approved.executeUpdate(approvePayoutUpdate, { args: [{ approved: true, by: 'ada' }] });
      await approved.result();
      await record('approved.json', approved);
      await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
      for (const [name, how] of [
        ['cancelled.json', 'signal'],
        ['temporal-cancelled.json', 'temporal'],
      ] as const) {
        const h = await start();
        const transferred = async () =>
          (await h.query<SagaStatus>('status')).recoveryPoints.some((p) => p.step === 'transfer');
        await waitFor(transferred, { timeoutMs: 30_000, what: 'the transfer' });
        if (how === 'signal') await h.signal(cancelSignal, { reason: 'replay', by: 'test' });
        else await h.cancel();
        await h.result().catch(() => undefined);
        await record(name, h);
      }
      await env.setFaults({ endpoints: { emails: {} } });
    }
    assert.deepEqual(readdirSync(FIXTURES).sort(), EXPECTED, 'the committed fixtures');
    assert.deepEqual(await replayHistories({ domains: DOMAINS, folder: FIXTURES }), EXPECTED);

    // A guard that cannot fail proves nothing: a history cut in the middle of its commands.
    const broken = resolve(FIXTURES, '..', uniqueName('broken'));
    mkdirSync(broken);
    try {
      const json = JSON.parse(readFileSync(join(FIXTURES, 'completed.json'), 'utf8'));
      json.events = json.events.filter(
        (e: { eventType?: string }) => e.eventType !== 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
      );
      writeFileSync(join(broken, 'completed-without-activities.json'), JSON.stringify(json));
      await assert.rejects(
        replayHistories({ domains: DOMAINS, folder: broken }),
        (err: unknown) =>
          err instanceof HistoryReplayError &&
          err.failures[0]!.file === 'completed-without-activities.json',
      );
    } finally {
      if (existsSync(broken)) rmSync(broken, { recursive: true });
    }
  });
});
