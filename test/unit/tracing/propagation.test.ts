import { strict as assert } from 'node:assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { KafkaMessage } from 'kafkajs';
import { postJson } from '../../../src/activities/http-post';
import { buildDlqMessage } from '../../../src/events/dlq-message';
import { detailsOf, traceOfDetails } from '../../../src/kafka-bridge/workflow-starter';
import type { StartCommand } from '../../../src/events/translate';
import { activeTracing, traceLogFields, tracer } from '../../../src/tracing/active';
import { tracedRequest, withServerSpan } from '../../../src/tracing/http';
import { contextOfRecord, withRecordSpan } from '../../../src/tracing/kafka-record';
import { flushTracing, startTracing, stopTracing } from '../../../src/tracing/sdk';

/** A producer's span: trace 4bf9…4736, span 00f0…02b7, sampled. */
const PRODUCER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PRODUCER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${PRODUCER_TRACE}-${PRODUCER_SPAN}-01`;

const ON = {
  on: true,
  exporter: 'otlp' as const,
  otlpEndpoint: undefined,
  zipkinEndpoint: undefined,
  traceUrl: undefined,
};

function record(headers: KafkaMessage['headers'], offset = '7'): KafkaMessage {
  return {
    key: Buffer.from('order-1'),
    value: Buffer.from('{}'),
    headers,
    offset,
    timestamp: '0',
    attributes: 0,
    size: 0,
  } as KafkaMessage;
}

/** A real loopback server answering 200 inside withServerSpan, as the sandbox does. */
async function tracedServer(): Promise<{ url: string; seen: string[]; close: () => void }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(String(req.headers.traceparent));
    void withServerSpan(req, res, '/v1/charges', async () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('tracing off: nothing is started, nothing is sent', () => {
  it('has no SDK, a no-op tracer, no log fields and no traceparent on a provider call', async () => {
    assert.equal(activeTracing(), undefined);
    const span = tracer().startSpan('x');
    assert.equal(span.isRecording(), false, 'the API tracer is the no-op one');
    span.end();
    assert.deepEqual(traceLogFields(), {});
    let sent: Record<string, string> = {};
    await tracedRequest(
      { 'idempotency-key': 'k' },
      {
        method: 'POST',
        url: 'http://127.0.0.1:1/v1/charges',
        send: async (headers) => {
          sent = headers;
          return { status: 200 };
        },
      },
    );
    assert.deepEqual(sent, { 'idempotency-key': 'k' });
  });

  it('runs the bridge step as it was, without reading the headers', async () => {
    const result = await withRecordSpan(
      record({ traceparent: TRACEPARENT }),
      { topic: 'orders', partition: 0 },
      async () => trace.getActiveSpan(),
      () => 'started',
    );
    assert.equal(result, undefined);
  });
});

describe('tracing on: one trace from the Kafka record to the provider', () => {
  let exporter: InMemorySpanExporter;
  const spans = async (): Promise<ReadableSpan[]> => {
    await flushTracing();
    return exporter.getFinishedSpans();
  };

  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    startTracing('onceflow-test', ON, { exporter });
  });
  afterEach(async () => {
    await stopTracing();
  });

  it('reads traceparent from a Kafka header, Buffer or string; a malformed one is no parent', () => {
    for (const value of [TRACEPARENT, Buffer.from(TRACEPARENT)]) {
      const ctx = trace.getSpanContext(contextOfRecord({ traceparent: value }));
      assert.equal(ctx?.traceId, PRODUCER_TRACE);
      assert.equal(ctx?.spanId, PRODUCER_SPAN);
      assert.equal(ctx?.isRemote, true);
    }
    assert.equal(trace.getSpanContext(contextOfRecord({ traceparent: 'garbage' })), undefined);
    assert.equal(trace.getSpanContext(contextOfRecord(undefined)), undefined);
    // Kafka allows null header values; an inherited name is not a header.
    const hostile = Object.create({ traceparent: TRACEPARENT }) as KafkaMessage['headers'];
    assert.equal(trace.getSpanContext(contextOfRecord(hostile)), undefined);
    assert.equal(
      trace.getSpanContext(
        contextOfRecord({ traceparent: null as unknown as string } as KafkaMessage['headers']),
      ),
      undefined,
    );
  });

  it("continues the producer's traceparent in the bridge's span, per message", async () => {
    const inside = await withRecordSpan(
      record({ traceparent: Buffer.from(TRACEPARENT) }),
      { topic: 'orders', partition: 2 },
      async () => ({ log: traceLogFields(), id: trace.getActiveSpan()?.spanContext().spanId }),
      () => 'started',
    );
    const [bridge] = await spans();
    assert.ok(bridge);
    assert.equal(bridge.name, 'process orders');
    assert.equal(bridge.spanContext().traceId, PRODUCER_TRACE);
    assert.equal(bridge.parentSpanId, PRODUCER_SPAN, "the producer's span is the parent");
    assert.equal(bridge.attributes['messaging.kafka.offset'], 7);
    assert.equal(bridge.attributes['onceflow.outcome'], 'started');
    assert.equal(inside.id, bridge.spanContext().spanId, 'the step runs in the span');
    assert.deepEqual(inside.log, { trace_id: PRODUCER_TRACE, span_id: inside.id });
  });

  it('starts a trace of its own for a record without traceparent, and one per record', async () => {
    for (const offset of ['1', '2']) {
      await withRecordSpan(
        record({}, offset),
        { topic: 'orders', partition: 0 },
        async () => undefined,
        () => 'dead-lettered',
      );
    }
    const [a, b] = await spans();
    assert.ok(a && b);
    assert.equal(a.parentSpanId, undefined);
    assert.notEqual(a.spanContext().traceId, b.spanContext().traceId);
    assert.equal(a.status.code, 2, 'a dead-lettered record is an error span');
  });

  it('sends traceparent on a provider call, and the provider continues it', async () => {
    const server = await tracedServer();
    try {
      await withRecordSpan(
        record({ traceparent: TRACEPARENT }),
        { topic: 'orders', partition: 0 },
        () =>
          tracedRequest(
            { 'idempotency-key': 'k1' },
            {
              method: 'POST',
              url: `${server.url}/v1/charges`,
              send: (headers) => postJson(`${server.url}/v1/charges`, headers, {}, 5000),
            },
          ),
        () => 'started',
      );
      const all = await spans();
      const byKind = (kind: number) => all.find((s) => s.kind === kind);
      const bridge = byKind(4); // CONSUMER
      const client = byKind(2); // CLIENT
      const providerSide = byKind(1); // SERVER
      assert.ok(bridge && client && providerSide, all.map((s) => s.name).join(', '));
      assert.equal(client.parentSpanId, bridge.spanContext().spanId);
      assert.equal(server.seen[0], `00-${PRODUCER_TRACE}-${client.spanContext().spanId}-01`);
      assert.equal(providerSide.parentSpanId, client.spanContext().spanId);
      assert.equal(providerSide.spanContext().traceId, PRODUCER_TRACE);
      assert.equal(providerSide.name, 'POST /v1/charges');
      assert.equal(providerSide.attributes['http.response.status_code'], 200);
    } finally {
      server.close();
    }
  });

  it("puts the trace's link in the workflow details (the Web UI)", () => {
    const cmd = {
      eventType: 'OrderPlaced',
      eventId: 'e1',
      identity: 'o1@1',
      fingerprint: 'f',
    } as StartCommand;
    const source = { topic: 'orders', partition: 0, offset: '1' };
    const link = `http://127.0.0.1:9411/zipkin/traces/${PRODUCER_TRACE}`;
    const details = detailsOf(cmd, source, { traceId: PRODUCER_TRACE, link });
    assert.match(details, new RegExp(`\\*\\*trace\\*\\* \\[${PRODUCER_TRACE}\\]\\(${link}\\)`));
    assert.doesNotMatch(detailsOf(cmd, source), /trace/);
    // The demo reads the link back from the details.
    assert.deepEqual(traceOfDetails(details), { traceId: PRODUCER_TRACE, link });
    assert.deepEqual(traceOfDetails(detailsOf(cmd, source, { traceId: PRODUCER_TRACE })), {
      traceId: PRODUCER_TRACE,
    });
    assert.equal(traceOfDetails(detailsOf(cmd, source)), undefined);
  });
});

describe('the DLQ record keeps the producer trace context', () => {
  it('copies traceparent and tracestate unchanged', () => {
    const dlq = buildDlqMessage({
      message: {
        key: null,
        value: Buffer.from('not json'),
        headers: { traceparent: Buffer.from(TRACEPARENT), tracestate: 'k=v' },
      },
      topic: 'orders',
      partition: 0,
      offset: '3',
      reason: 'unparseable',
      error: 'x',
      failedAt: new Date(0),
    });
    assert.equal(String(dlq.message.headers.traceparent), TRACEPARENT);
    assert.equal(String(dlq.message.headers.tracestate), 'k=v');
  });
});
