import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, launchChromium } from '../../support/chromium';
import { startCodecServer, type RunningCodecServer } from '../../../src/codec-server/server';
import { stackPaths } from '../../../harness/stack/paths';
import { pickPort } from '../../../harness/stack/ports';
import { stopProcessGroup } from '../../../harness/stack/processes';
import { waitFor } from '../../../src/util/wait';
import { installTemporal, startTemporal, waitForTemporal } from '../../../harness/stack/temporal';
import { createClient } from '../../../src/temporal/connection';
import { EncryptionCodec } from '../../../src/temporal/encryption-codec';
import { eventInputOf } from '../../support/order-env';
import { testConfig, uniqueName } from '../../support/services';
import { orderFulfillment } from '../../../src/domains/orders/workflows';

/** The text of the page and of every frame in it (the UI renders payloads in code blocks). */
async function pageText(page: Page): Promise<string> {
  const parts = await Promise.all(
    page.frames().map((f) =>
      f
        .locator('body')
        .innerText({ timeout: 2000 })
        .catch(() => ''),
    ),
  );
  return parts.join('\n');
}

/**
 * The Web UI with and without the codec server. The shared dev server was started before
 * `--ui-codec-endpoint` existed in the stack and must not be restarted, so this test runs its
 * own dev server (private state folder, own ports) started the way the stack starts it.
 */
describe('Web UI decodes orders through the codec server (real dev server, Chromium)', function () {
  this.timeout(300_000);
  const config = testConfig();
  const stateDir = mkdtempSync(join(tmpdir(), 'onceflow-codec-ui-'));
  const email = `${uniqueName('uicodec')}@example.com`;
  const orderId = uniqueName('ord-ui');
  const workflowId = uniqueName('wf-codec-ui');
  let temporalPid: number | undefined;
  let codec: RunningCodecServer | undefined;
  let codecPort: number;
  let ports: { grpc: number; ui: number };
  let browser: Browser;
  let connection: Connection;

  before(async () => {
    const taken = new Set<number>();
    ports = { grpc: await pickPort(17233, taken), ui: await pickPort(18233, taken) };
    codecPort = await pickPort(18089, taken);
    const bin = await installTemporal(stackPaths(), () => undefined);
    temporalPid = startTemporal(stackPaths(stateDir), bin, ports, {
      codecEndpoint: `http://127.0.0.1:${codecPort}`,
    });
    await waitForTemporal(ports, 120_000);
    connection = await Connection.connect({ address: `127.0.0.1:${ports.grpc}` });
    const client = createClient(connection, config);
    const data = {
      orderId,
      customerId: 'cus_codec_ui',
      email,
      currency: 'EUR',
      items: [{ sku: 'sku-ui', quantity: 1, unitPriceMinor: 1999 }],
      totalMinor: 1999,
    };
    // No worker polls this queue: the started event's input is all the UI needs to show.
    await client.workflow.start(orderFulfillment, {
      workflowId,
      taskQueue: uniqueName('no-worker'),
      args: [eventInputOf('OrderPlaced', orderId, data)],
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await codec?.close();
    await connection?.close();
    if (temporalPid) await stopProcessGroup(temporalPid, 'SIGTERM');
    rmSync(stateDir, { recursive: true, force: true });
  });

  async function openOrder(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1400 } });
    await page.goto(`http://127.0.0.1:${ports.ui}/namespaces/default/workflows/${workflowId}`);
    await page.getByText(workflowId).first().waitFor({ timeout: 60_000 });
    return page;
  }

  it('with the codec server up, the order input shows decoded (email visible)', async () => {
    codec = await startCodecServer({
      codecFor: (namespace) => new EncryptionCodec(config.encryption.ring!, { namespace }),
      corsOrigin: `http://127.0.0.1:${ports.ui}`,
      namespace: 'default',
      port: codecPort,
    });
    const page = await openOrder();
    try {
      await page.getByText(email).first().waitFor({ timeout: 60_000 });
      const text = await pageText(page);
      writeFileSync(resolve(ARTIFACTS, 'web-ui-codec-decoded.txt'), text);
      await page.screenshot({
        path: resolve(ARTIFACTS, 'web-ui-codec-decoded.png'),
        fullPage: true,
      });
      assert.ok(text.includes(email));
    } finally {
      await page.close();
    }
  });

  it('without the codec server, the UI shows only ciphertext', async () => {
    await codec?.close();
    codec = undefined;
    const page = await openOrder();
    try {
      // The UI says it cannot reach the codec and shows the input as base64 ciphertext.
      await waitFor(async () => (await pageText(page)).includes('Codec Server could not connect'), {
        timeoutMs: 60_000,
        intervalMs: 500,
        what: 'the UI reporting the codec unreachable',
      });
      const text = await pageText(page);
      writeFileSync(resolve(ARTIFACTS, 'web-ui-codec-ciphertext.txt'), text);
      await page.screenshot({
        path: resolve(ARTIFACTS, 'web-ui-codec-ciphertext.png'),
        fullPage: true,
      });
      assert.ok(!text.includes(email), 'email visible without the codec server');
      assert.ok(!text.includes('cus_codec_ui'), 'customer visible without the codec server');
    } finally {
      await page.close();
    }
  });
});
