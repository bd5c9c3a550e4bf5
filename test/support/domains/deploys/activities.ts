// The deploy test domain's activities: a charge and a mail through the sandbox providers, and
// an audit row; the same in both versions of its workflow (activities are not versioned).
import { postToProvider, type ActivityDeps } from '../../../../src';

export function createDeployActivities(deps: ActivityDeps) {
  const providers = () => deps.providers ?? { url: deps.config?.providers.url ?? '' };
  return {
    async chargeRenewal(i: { key: string; renewalId: string; amountMinor: number }) {
      const res = await postToProvider(providers(), {
        path: '/v1/charges',
        key: i.key,
        body: {
          orderId: i.renewalId,
          customerId: 'cus_deploy',
          amountMinor: i.amountMinor,
          currency: 'EUR',
        },
      });
      return { chargeId: String((res.body as { id?: unknown }).id) };
    },
    async mailRenewal(i: { key: string; renewalId: string }) {
      await postToProvider(providers(), {
        path: '/v1/emails',
        key: i.key,
        body: { orderId: i.renewalId, to: 'a@example.com', subject: 'Renewed', body: 'Thanks.' },
      });
    },
    async auditRenewal(i: { key: string; renewalId: string }) {
      await deps.pool.query(
        'INSERT INTO effects (key, what) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [i.key, `audit ${i.renewalId}`],
      );
    },
  };
}

export type DeployActivities = ReturnType<typeof createDeployActivities>;
