import { strict as assert } from 'node:assert';
import { loadConfig } from '../../../src/config';
import { DOMAINS } from '../../../src/domains';
import { payouts } from '../../../src/domains/payouts';
import { fairnessOptionsOf, tenantsConfigured } from '../../../src/worker/fairness-options';

describe('worker: eager dispatch and sticky queues as fairness needs them', () => {
  it('auto: eager activities off when a route names a tenant (orders: the merchant), on otherwise', () => {
    const config = loadConfig({});
    assert.equal(tenantsConfigured(config, DOMAINS), true);
    assert.equal(fairnessOptionsOf(config, DOMAINS).maxEagerActivityReservationsPerWorkflowTask, 0);
    assert.equal(tenantsConfigured(config, [payouts]), false);
    assert.equal(
      fairnessOptionsOf(config, [payouts]).maxEagerActivityReservationsPerWorkflowTask,
      3,
    );
    const weighted = loadConfig({ TENANT_WEIGHTS: '{"acme": 2}' });
    assert.equal(
      fairnessOptionsOf(weighted, [payouts]).maxEagerActivityReservationsPerWorkflowTask,
      0,
      'TENANT_WEIGHTS alone counts as tenants',
    );
  });

  it('on and off say so whatever the routes; sticky off is no cache; the sticky timeout is passed on', () => {
    const on = fairnessOptionsOf(loadConfig({ WORKER_EAGER_ACTIVITIES: 'on' }), DOMAINS);
    assert.equal(on.maxEagerActivityReservationsPerWorkflowTask, 3);
    assert.equal(on.maxCachedWorkflows, 250);
    assert.equal(on.stickyQueueScheduleToStartTimeout, 10_000);
    const off = fairnessOptionsOf(
      loadConfig({
        WORKER_EAGER_ACTIVITIES: 'off',
        WORKER_STICKY_QUEUE: 'off',
        WORKER_STICKY_QUEUE_TIMEOUT: '3s',
      }),
      [payouts],
    );
    assert.equal(off.maxEagerActivityReservationsPerWorkflowTask, 0);
    assert.equal(off.maxCachedWorkflows, 0);
    assert.equal(off.stickyQueueScheduleToStartTimeout, 3000);
  });
});
