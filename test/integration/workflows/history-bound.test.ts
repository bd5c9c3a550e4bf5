import { strict as assert } from 'node:assert';
import { retryStepSignal, type SagaStatus } from '../../../src/workflows/saga-status';
import { EVENTS_PER_CALL, TEMPORAL_HISTORY_LIMIT } from '../../../src/workflows/run-budget';
import { createSeamsEnv, type SeamsEnv } from '../../support/seams-env';
import { uniqueName } from '../../support/services';

/**
 * A run's history is bounded by construction, with no continue-as-new: a wait costs the same
 * few events whatever its length (its waiting round is one activity Temporal retries), so the
 * longest run the engine allows (a step waiting its whole window and parking, twice; an
 * approval waiting its deadline; the undo waiting its whole window and parking, twice; the
 * operator's retries) holds the same number of events with a 1 s window as with a 3 s one, as
 * it would with a day's. The test prints that number.
 */
describe("a run's history is bounded whatever its waits last (seams domain, real Temporal)", function () {
  this.timeout(300_000);
  let env: SeamsEnv;
  before(async () => {
    env = await createSeamsEnv();
  });
  after(async () => {
    await env?.close();
  });

  /** Drives the longest run with waits of `windowMs`; returns its history length. */
  async function longestRun(windowMs: number): Promise<number> {
    const window = { windowMs, intervalMs: Math.round(windowMs / 8) };
    const id = uniqueName(`longest-${windowMs}`);
    await env.fault('pay', 'outage', window);
    await env.fault('refund', 'outage', window);
    const h = await env.start('longest', { id, deadline: `${windowMs} ms` });
    const parkedAgain = async (step: string, times: number) => {
      for (let i = 0; i < times; i++) {
        await env.until(h, (s) => parkedFor(s, step, i + 1), `${step} parked (${i + 1})`);
        if (i + 1 === times) await env.fault(step, undefined);
        await h.signal(retryStepSignal, { by: 'operator', reason: `retry ${i + 1}` });
      }
    };
    await parkedAgain('pay', 2);
    await parkedAgain('refund', 2);
    const result = (await h.result()) as { outcome: string };
    assert.equal(result.outcome, 'expired');
    assert.deepEqual(await env.effectsOf(id), ['pay', 'refund']);
    return (await h.describe()).historyLength;
  }

  /** The step is parked, in its `episode`-th episode (1: before any retry). */
  const parkedFor = (s: SagaStatus, step: string, episode: number) =>
    s.parked?.step === step &&
    (s.operatorActions ?? []).filter((a) => a.action === 'retry').length ===
      episode - 1 + (step === 'refund' ? 2 : 0);

  it('holds the same events with a 1 s and a 3 s window, far under the limit', async () => {
    const short = await longestRun(1000);
    const long = await longestRun(3000);
    process.stdout.write(
      `      the longest run: ${short} events with 1 s waits, ${long} with 3 s waits (Temporal terminates at ${TEMPORAL_HISTORY_LIMIT})\n`,
    );
    assert.ok(
      Math.abs(short - long) <= 6,
      `${short} vs ${long}: the waits' length shows in history`,
    );
    // Two calls, four episodes, their operator signals: each episode within the budget's share.
    assert.ok(long <= 6 * EVENTS_PER_CALL, `${long} events for two calls and four episodes`);
  });
});
