import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, launchChromium } from '../../support/chromium';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { setStock } from '../../../src/domains/orders/inventory/stock-store';
import type { RunningProviders } from '../../../harness/sandbox/server';
import { stackPaths } from '../../../harness/stack/paths';
import { pickAnyPort } from '../../../harness/stack/ports';
import { stopProcessGroup } from '../../../harness/stack/processes';
import {
  installZipkin,
  startZipkin,
  waitForZipkin,
  zipkinSettings,
} from '../../../harness/stack/zipkin';
import { flushTracing, startTracing, stopTracing } from '../../../src/tracing/sdk';
import { waitFor } from '../../../src/util/wait';
import { createWorker } from '../../../src/worker/create-worker';
import { orderStatusQuery } from '../../../src/domains/orders/workflows/order-definitions';
import { DOMAINS } from '../../../src/domains';
import { BridgeHarness } from '../../support/bridge-harness';
import { createTestDatabase, startTestProviders, type TestDatabase } from '../../support/providers';
import { testConfig, uniqueName } from '../../support/services';
import { workflowBundle } from '../../support/workflow-bundle';

/** A Zipkin v2 span as its API returns it (names lower-cased by Zipkin). */
interface ZipkinSpan {
  traceId: string;
  id: string;
  parentId?: string;
  name?: string;
  kind?: string;
  localEndpoint?: { serviceName?: string };
}

/** A random W3C trace context, as the producing service would send it. */
function producerContext(): { traceId: string; spanId: string; traceparent: string } {
  const hex = (bytes: number) =>
    Array.from({ length: bytes }, () => Math.floor(Math.random() * 256))
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/**
 * One order, produced with the producer's own `traceparent`, through the real bridge, Temporal
 * worker (the SDK's interceptors in the workflow bundle) and sandbox providers, traced to the
 * stack's trace viewer (Zipkin from Maven Central, started here on a free port by the stack's
 * own code); headless Chromium opens the order's trace in Zipkin's UI and finds the bridge,
 * the workflow, the three steps and the provider call, all under the producer's span.
 */
describe('Tracing: one order, one trace, in Zipkin (real bridge, worker, providers, Chromium)', function () {
  this.timeout(600_000);
  let h: BridgeHarness;
  let db: TestDatabase;
  let providers: RunningProviders;
  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection };
  let browser: Browser;
  let zipkin: { pid: number; url: string; settings: ReturnType<typeof zipkinSettings> };
  const orderId = uniqueName('order');
  const workflowId = deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1));
  const producer = producerContext();

  before(async () => {
    const paths = stackPaths();
    const jar = await installZipkin(paths, (m) => process.stdout.write(`      ${m}\n`));
    const port = await pickAnyPort(new Set());
    const pid = startZipkin(paths, jar, port, `zipkin-${orderId}`);
    zipkin = { pid, url: `http://127.0.0.1:${port}`, settings: zipkinSettings(port) };
    await waitForZipkin(port, 180_000);

    const config = testConfig();
    const tracing = {
      on: true,
      exporter: 'zipkin' as const,
      otlpEndpoint: undefined,
      zipkinEndpoint: zipkin.settings.OTEL_EXPORTER_ZIPKIN_ENDPOINT,
      traceUrl: zipkin.settings.ONCEFLOW_TRACE_URL,
    };
    // Before any client or worker is made: their interceptors follow whether tracing is on.
    startTracing('onceflow', tracing);

    db = await createTestDatabase('trace');
    providers = await startTestProviders(db);
    h = await new BridgeHarness().setUp(1);
    // The bridge reads the trace link's template from its config, as from ONCEFLOW_TRACE_URL.
    Object.assign(h.config, { tracing });
    const connection = await NativeConnection.connect({ address: h.config.temporal.address });
    const w = await createWorker({
      domains: DOMAINS,
      connection,
      config,
      deps: { pool: db.pool, providers: { url: providers.url, timeoutMs: 5000 } },
      taskQueue: h.taskQueue,
      workflowBundle: await workflowBundle(),
    });
    worker = { worker: w, running: w.run(), connection };
    await h.startBridge();
    const sku = uniqueName('sku');
    await setStock(db.pool, sku, 5);
    const record = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { lines: 1, sku: () => sku }),
    });
    await h.produce([
      { ...record, headers: { ...record.headers, traceparent: producer.traceparent } },
    ]);
    await waitFor(
      async () =>
        (await h.client.workflow.getHandle(workflowId).query(orderStatusQuery)).step ===
        'completed',
      { timeoutMs: 120_000, intervalMs: 500, what: 'the order completed' },
    );
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (worker) {
      worker.worker.shutdown();
      await worker.running;
      await worker.connection.close();
    }
    await h?.tearDown();
    await providers?.close();
    await db?.pool.end();
    await stopTracing();
    if (zipkin) await stopProcessGroup(zipkin.pid);
  });

  /** Span names (lower case, as Zipkin keeps them) every order's trace must show. */
  const expected = [
    `process ${'<topic>'}`,
    'startworkflow:orderfulfillment',
    'runworkflow:orderfulfillment',
    'runactivity:reserveinventory',
    'runactivity:chargepayment',
    'runactivity:sendemail',
    'post /v1/charges',
    'post /v1/emails',
  ];
  const expectedNames = () => expected.map((n) => n.replace('<topic>', h.topic.toLowerCase()));

  it("is one trace under the producer's traceparent, with every hop in it (Zipkin API)", async () => {
    await flushTracing();
    const spans = await waitFor(
      async () => {
        const res = await fetch(`${zipkin.url}/api/v2/trace/${producer.traceId}`);
        if (res.status !== 200) return undefined;
        const found = (await res.json()) as ZipkinSpan[];
        const names = new Set(found.map((s) => s.name));
        return expectedNames().every((n) => names.has(n)) ? found : undefined;
      },
      {
        timeoutMs: 60_000,
        intervalMs: 1000,
        what: `every expected span in trace ${producer.traceId}`,
      },
    );
    assert.ok(spans.every((s) => s.traceId === producer.traceId));
    const bridge = spans.find((s) => s.name === `process ${h.topic.toLowerCase()}`)!;
    assert.equal(bridge.parentId, producer.spanId, "the producer's span is the bridge's parent");
    assert.equal(bridge.kind, 'CONSUMER');
    // Every other span descends from the bridge's: one tree, rooted at the producer.
    const byId = new Map(spans.map((s) => [s.id, s]));
    for (const span of spans) {
      let at: ZipkinSpan | undefined = span;
      for (let hops = 0; at && at.id !== bridge.id && hops < 50; hops++) {
        at = at.parentId ? byId.get(at.parentId) : undefined;
      }
      assert.equal(at?.id, bridge.id, `${span.name} descends from the bridge's span`);
    }
    // The provider's side continues the client's traceparent: a SERVER span under the CLIENT one.
    const charges = spans.filter((s) => s.name === 'post /v1/charges');
    const client = charges.find((s) => s.kind === 'CLIENT');
    const server = charges.find((s) => s.kind === 'SERVER');
    assert.ok(client && server, 'the charge call from both sides');
    assert.equal(server.parentId, client.id);
    writeFileSync(resolve(ARTIFACTS, 'order-trace.json'), JSON.stringify(spans, null, 2));
  });

  it("shows the trace's link in the workflow's details (the Web UI's)", async () => {
    const details = await (
      await h.client.workflow.getHandle(workflowId).describe()
    ).staticDetails();
    const link = zipkin.settings.ONCEFLOW_TRACE_URL.replace('{traceId}', producer.traceId);
    assert.ok(details?.includes(`[${producer.traceId}](${link})`), details);
  });

  it('opens the trace in Zipkin in headless Chromium and sees every hop', async () => {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1400 } });
    try {
      await page.goto(`${zipkin.url}/zipkin/traces/${producer.traceId}`);
      const text = await waitFor(
        async () => {
          const body = (await page.locator('body').innerText({ timeout: 2000 })).toLowerCase();
          return expectedNames().every((n) => body.includes(n)) ? body : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 1000, what: "every hop's span in Zipkin's trace page" },
      );
      await page.screenshot({ path: resolve(ARTIFACTS, 'order-trace.png'), fullPage: true });
      writeFileSync(resolve(ARTIFACTS, 'order-trace.txt'), text);
      assert.ok(text.includes(producer.traceId), 'the page is the producer’s trace');
      // The root span, selected on opening, names the producer's span as its parent.
      assert.match(text, new RegExp(`parent id\\s+${producer.spanId}`));
      assert.ok(text.includes('onceflow'), 'the service name');
    } finally {
      await page.close();
    }
  });
});
