// The renewal test domain's activities: each records its effect once under its key, in the
// test schema's `effects` table (the stand-in for the outside world), and answers from it.
import { Context, heartbeat, activityInfo } from '@temporalio/activity';
import type { ActivityDeps } from '../../../../src';

export const EFFECTS_TABLE = `CREATE TABLE IF NOT EXISTS effects (
  key text PRIMARY KEY, what text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`;

export function createRenewalActivities({ pool }: ActivityDeps) {
  const effect = async (key: string, what: string) => {
    await pool.query('INSERT INTO effects (key, what) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      key,
      what,
    ]);
  };
  return {
    async chargeRenewal(i: { key: string; amountMinor: number }): Promise<{ chargeId: string }> {
      await effect(i.key, `charge ${i.amountMinor}`);
      return { chargeId: `ch-${i.key}` };
    },
    async refundRenewal(i: { key: string; chargeId?: string; subscriptionId: string }) {
      await effect(i.key, `refund ${i.chargeId ?? `by subscription ${i.subscriptionId}`}`);
    },
    async holdSeat(i: { key: string; seat: string }) {
      await effect(i.key, `seat ${i.seat}`);
    },
    async freeSeat(i: { key: string; seat: string }) {
      await effect(i.key, `free ${i.seat}`);
    },
    async sendReminder(i: { key: string; chargeId: string }) {
      await effect(i.key, `remind ${i.chargeId}`);
    },
    /**
     * A slow call that heartbeats, except on its first attempt, which hangs silently (until
     * the worker cancels it at shutdown): only a heartbeat timeout ends that attempt before
     * its (long) start-to-close timeout.
     */
    async syncLedger(i: { key: string }) {
      if (activityInfo().attempt === 1) await Context.current().cancelled;
      heartbeat();
      await effect(i.key, 'sync');
    },
  };
}

export type RenewalActivities = ReturnType<typeof createRenewalActivities>;
