import { strict as assert } from 'node:assert';
import { resolve } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { Browser } from 'playwright-core';
import { findClaim } from '../../../src/db/entity-claim-store';
import { workflowUrl } from '../../../src/temporal/ui-links';
import { ARTIFACTS, launchChromium } from '../../support/chromium';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { testConfig } from '../../support/services';

/**
 * The button an operator sees first: "Request Cancellation" in the Temporal Web UI, clicked in
 * headless Chromium on an order charged and waiting on a failing mail provider. The order is
 * refunded and released, its claim settled `cancelled`, the run Canceled.
 */
describe('Web UI "Request Cancellation" unwinds an order (Chromium, real stack)', function () {
  this.timeout(300_000);
  let env: OrderEnv;
  let browser: Browser;
  before(async () => {
    env = await createOrderEnv({ transientRetryWindowMs: 60 * 60_000 });
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await env.close();
  });

  it('clicking Request Cancellation on an order waiting after its charge refunds and releases it', async () => {
    const sku = await env.seedStock(4);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    await env.waitForStatus(handle, (s) => s.waiting?.step === 'email', 'charged, waiting on mail');
    const { temporal } = testConfig();
    const page = await browser.newPage({ viewport: { width: 1600, height: 1100 } });
    try {
      await page.goto(workflowUrl(temporal.uiUrl, temporal.namespace, handle.workflowId));
      await page.getByRole('button', { name: 'Request Cancellation' }).first().click();
      const modal = page.locator('[data-testid=cancel-confirmation-modal]');
      await modal.getByRole('button', { name: 'Confirm' }).click();
      const err = await handle.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure);
      await page.reload();
      await page.getByText('Canceled', { exact: false }).first().waitFor({ timeout: 30_000 });
      await page.screenshot({ path: resolve(ARTIFACTS, 'web-ui-cancelled-order.png') });
    } finally {
      await page.close();
    }
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 1);
    assert.equal(ledger.refunds.length, 1, 'refunded');
    assert.equal(await env.stockOf(sku), 4, 'stock released');
    const claim = await findClaim(env.db.pool, { domain: 'orders', entityId: order.orderId });
    assert.equal(claim?.settled, 'cancelled');
  });
});
