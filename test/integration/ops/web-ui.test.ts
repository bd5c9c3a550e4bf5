import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, launchChromium } from '../../support/chromium';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { setStock } from '../../../src/domains/orders/inventory/stock-store';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import type { RunningProviders } from '../../../harness/sandbox/server';
import { waitFor } from '../../../src/util/wait';
import { createWorker } from '../../../src/worker/create-worker';
import { DOMAINS } from '../../../src/domains';
import { orderStatusQuery } from '../../../src/domains/orders/workflows/order-definitions';
import { BridgeHarness } from '../../support/bridge-harness';
import {
  createTestDatabase,
  setFaults,
  startTestProviders,
  type TestDatabase,
} from '../../support/providers';
import { testConfig, uniqueName } from '../../support/services';
import { workflowBundle } from '../../support/workflow-bundle';

/**
 * The operator's path in the real Temporal Web UI: an order from Kafka, through the bridge,
 * parked by a failing mail API; headless Debian Chromium runs `Step = "needs_attention"`,
 * finds the order, opens it and sees its summary and the parked step.
 */
describe('Web UI: finding a parked order (real bridge, worker, Temporal UI, Chromium)', function () {
  this.timeout(600_000);
  let h: BridgeHarness;
  let db: TestDatabase;
  let providers: RunningProviders;
  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection };
  let browser: Browser;
  const orderId = uniqueName('order');
  const workflowId = deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1));

  before(async () => {
    db = await createTestDatabase('ui');
    providers = await startTestProviders(db);
    await setFaults(providers, { endpoints: { emails: { failBeforeCommitRate: 1 } } });
    h = await new BridgeHarness().setUp(1);
    const connection = await NativeConnection.connect({ address: h.config.temporal.address });
    const config = testConfig();
    const w = await createWorker({
      domains: DOMAINS,
      connection,
      // A failing mail API is a transient cause: the order waits out the window (1 h by
      // default) before it parks; one second parks it at once for the operator's view.
      config: { ...config, orders: { ...config.orders, transientRetryWindowMs: 1000 } },
      deps: { pool: db.pool, providers: { url: providers.url, timeoutMs: 5000 } },
      taskQueue: h.taskQueue,
      workflowBundle: await workflowBundle(),
    });
    worker = { worker: w, running: w.run(), connection };
    await h.startBridge();
    const sku = uniqueName('sku');
    await setStock(db.pool, sku, 5);
    await h.produce([
      buildEventMessage({
        eventType: 'OrderPlaced',
        aggregateId: orderId,
        aggregateVersion: 1,
        data: sampleOrderPlaced(orderId, { lines: 1, sku: () => sku }),
      }),
    ]);
    await waitFor(
      async () =>
        (await h.client.workflow.getHandle(workflowId).query(orderStatusQuery)).step ===
        'needs_attention',
      { timeoutMs: 90_000, intervalMs: 500, what: 'the order parked in needs_attention' },
    );
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await h?.client.workflow
      .getHandle(workflowId)
      .terminate('test cleanup')
      .catch(() => undefined);
    if (worker) {
      worker.worker.shutdown();
      await worker.running;
      await worker.connection.close();
    }
    await h?.tearDown();
    await providers?.close();
    await db?.pool.end();
  });

  it('runs Step = "needs_attention", opens the parked order, sees summary and step', async () => {
    const { uiUrl, namespace } = h.config.temporal;
    const page = await browser.newPage({ viewport: { width: 1600, height: 1100 } });
    try {
      // Visibility indexes asynchronously; the operator would press Enter again.
      await waitFor(
        async () => {
          await page.goto(`${uiUrl}/namespaces/${namespace}/workflows`);
          await page.click('[data-testid=toggle-manual-query]');
          const input = page.locator('[data-testid=workflow-manual-search-input]');
          await input.fill('Step = "needs_attention"');
          await input.press('Enter');
          await page
            .getByRole('link', { name: workflowId, exact: true })
            .first()
            .waitFor({ timeout: 5000 });
          return true;
        },
        { timeoutMs: 60_000, intervalMs: 1000, what: `${workflowId} in the query result` },
      );
      assert.equal(new URL(page.url()).searchParams.get('query'), 'Step = "needs_attention"');
      await page.screenshot({ path: resolve(ARTIFACTS, 'web-ui-needs-attention-list.png') });

      await page.getByRole('link', { name: workflowId, exact: true }).first().click();
      await page.waitForURL(/\/workflows\/.+/);
      await page.getByText('Search Attributes', { exact: true }).first().waitFor();
      // The timeline names each activity by its summary: the failing email step and its key.
      await page.getByText(`order:${orderId}:email`).first().waitFor({ timeout: 30_000 });
      await page.screenshot({
        path: resolve(ARTIFACTS, 'web-ui-parked-order.png'),
        fullPage: true,
      });

      // The static summary and details the bridge set at start.
      await page.getByText('User Metadata', { exact: true }).first().click();
      await page.getByText('Summary', { exact: true }).first().waitFor({ timeout: 30_000 });
      // The summary names the order as a word of its own (the header's workflow ID has it
      // followed by `@`). The UI renders user metadata as markdown in a sandboxed frame, so
      // every frame is searched.
      const ownWord = new RegExp(`(^|\\s)${orderId}(\\s|$)`);
      const summaryText = await waitFor(
        async () => {
          for (const frame of page.frames()) {
            const text = await frame
              .locator('body')
              .innerText({ timeout: 1000 })
              .catch(() => '');
            if (ownWord.test(text)) return text;
          }
          return undefined;
        },
        { timeoutMs: 30_000, intervalMs: 250, what: 'the static summary naming the order' },
      );
      // Readable at a glance: order, item count, amount with currency, customer.
      assert.match(summaryText, /Order \S+ · \d+ items? · \d+\.\d\d [A-Z]{3} · customer \S+/);
      const metadata = await page.locator('main').innerText();
      await page.screenshot({ path: resolve(ARTIFACTS, 'web-ui-parked-order-summary.png') });

      // The pending step: Step = needs_attention.
      await page.getByText('Search Attributes', { exact: true }).first().click();
      await page.getByText('needs_attention').first().waitFor({ timeout: 30_000 });
      const attributes = await page.locator('main').innerText();
      writeFileSync(
        resolve(ARTIFACTS, 'web-ui-parked-order.txt'),
        `${summaryText}\n----\n${metadata}\n----\n${attributes}`,
      );
      await page.screenshot({ path: resolve(ARTIFACTS, 'web-ui-parked-order-step.png') });
      assert.match(attributes, /\bStep\b/);
      assert.match(attributes, /needs_attention/);
      assert.match(attributes, /EntityId/);
      assert.ok(attributes.includes(orderId), 'EntityId search attribute');
    } finally {
      await page.close();
    }
  });
});
