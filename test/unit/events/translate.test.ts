import { strict as assert } from 'node:assert';
import { translateMessage, type Translation } from '../../../src/events/translate';
import { buildRouteTable, DEFAULT_ROUTES } from '../../../src/domains';
import { defineRoute } from '../../../src/events/define-route';
import { anyJsonObjectSchema, routeTableOf } from '../../../src/events/routes';
import { fingerprint, MAX_WORKFLOW_ID_LENGTH } from '../../../src/events/identity';
import type { Route } from '../../../src/events/routes';
import { detailsOf } from '../../../src/kafka-bridge/workflow-starter';
import { bodyMessage, EVENT_ID, headerMessage, orderPlacedData } from './fixtures';

const options = { maxBytes: 64 * 1024 };

function poisonOf(t: Translation): { reason: string; error: string } {
  assert.equal(t.kind, 'poison', `expected poison, got ${JSON.stringify(t)}`);
  return t as { reason: string; error: string };
}

function startOf(t: Translation) {
  assert.equal(t.kind, 'start', `expected a start, got ${JSON.stringify(t)}`);
  return t as Extract<Translation, { kind: 'start' }>;
}

describe('bridge: translateMessage', () => {
  it('turns a valid OrderPlaced into a start command', () => {
    const t = startOf(translateMessage(headerMessage(), DEFAULT_ROUTES, options));
    assert.equal(t.identity, 'v:order-123@1');
    assert.equal(t.workflowId, 'OrderPlaced:v:order-123@1');
    assert.equal(t.workflowType, 'orderFulfillment');
    assert.equal(t.eventType, 'OrderPlaced');
    assert.equal(t.eventId, EVENT_ID);
    assert.equal(t.aggregateId, 'order-123');
    assert.equal(t.aggregateVersion, 1);
    assert.deepEqual(t.data, orderPlacedData());
    assert.equal(t.fingerprint, fingerprint(orderPlacedData()));
    assert.deepEqual(t.searchAttributes, {
      EventId: EVENT_ID,
      EventType: 'OrderPlaced',
      EntityId: 'order-123',
      CustomerId: 'cust-9',
    });
    assert.deepEqual(t.memo, {
      identity: 'v:order-123@1',
      eventId: EVENT_ID,
      eventType: 'OrderPlaced',
      aggregateId: 'order-123',
      aggregateVersion: 1,
      fingerprint: t.fingerprint,
    });
    assert.equal(t.summary, 'Order `order-123` · 3 items · 12.50 EUR · customer `cust-9`');
  });

  it('gives header and body forms of one event the same command', () => {
    const a = startOf(translateMessage(headerMessage(), DEFAULT_ROUTES, options));
    const b = startOf(translateMessage(bodyMessage(), DEFAULT_ROUTES, options));
    assert.deepEqual(a.memo, b.memo);
    assert.equal(a.workflowId, b.workflowId);
  });

  it('derives one workflow for one aggregate version under two event IDs', () => {
    const a = startOf(
      translateMessage(headerMessage(undefined, { 'event-id': 'e-1' }), DEFAULT_ROUTES, options),
    );
    const b = startOf(
      translateMessage(headerMessage(undefined, { 'event-id': 'e-2' }), DEFAULT_ROUTES, options),
    );
    assert.equal(a.workflowId, b.workflowId);
    assert.equal(a.fingerprint, b.fingerprint);
  });

  it('uses the event ID as identity when there is no version', () => {
    const t = startOf(
      translateMessage(
        headerMessage(undefined, { 'aggregate-version': undefined }),
        DEFAULT_ROUTES,
        options,
      ),
    );
    assert.equal(t.identity, `e:${EVENT_ID}`);
    assert.equal(t.workflowId, `OrderPlaced:e:${EVENT_ID}`);
    assert.equal('aggregateVersion' in t, false);
    assert.equal('aggregateVersion' in t.memo, false);
    assert.equal(t.summary, 'Order `order-123` · 3 items · 12.50 EUR · customer `cust-9`');
  });

  it('fingerprints the validated data: key order and trimmed whitespace do not matter', () => {
    const reordered = Object.fromEntries(Object.entries(orderPlacedData()).reverse());
    const padded = { ...orderPlacedData(), orderId: ' order-123 ' };
    const base = startOf(translateMessage(headerMessage(), DEFAULT_ROUTES, options));
    assert.equal(
      startOf(translateMessage(headerMessage(reordered), DEFAULT_ROUTES, options)).fingerprint,
      base.fingerprint,
    );
    assert.equal(
      startOf(translateMessage(headerMessage(padded), DEFAULT_ROUTES, options)).fingerprint,
      base.fingerprint,
    );
    const other = startOf(
      translateMessage(
        headerMessage(orderPlacedData({ email: 'b@example.com' })),
        DEFAULT_ROUTES,
        options,
      ),
    );
    assert.notEqual(other.fingerprint, base.fingerprint);
  });

  it('translates OrderCancelled to orderCancellation', () => {
    const t = startOf(
      translateMessage(
        headerMessage(
          { orderId: 'order-123', reason: 'customer asked' },
          { 'event-type': 'OrderCancelled', 'aggregate-version': '2' },
        ),
        DEFAULT_ROUTES,
        options,
      ),
    );
    assert.equal(t.workflowType, 'orderCancellation');
    assert.equal(t.workflowId, 'OrderCancelled:v:order-123@2');
    assert.equal(t.searchAttributes.CustomerId, undefined);
  });

  it('routes a configured event type with any JSON object as data', () => {
    const routes = buildRouteTable({
      InvoiceIssued: { workflowType: 'invoice', identity: 'event-id' },
    });
    const t = startOf(
      translateMessage(
        headerMessage({ invoice: 7 }, { 'event-type': 'InvoiceIssued' }),
        routes,
        options,
      ),
    );
    assert.equal(t.workflowType, 'invoice');
    assert.equal(t.identity, `e:${EVENT_ID}`, 'event-id strategy ignores the version');
    assert.deepEqual(
      t.searchAttributes,
      { EventId: EVENT_ID, EventType: 'InvoiceIssued', EntityId: 'order-123' },
      'a route naming no entity shows its aggregate, and no customer',
    );
    assert.match(t.summary, /^InvoiceIssued `[^`]+` v\d+ → invoice$/, 'a route without summarize');
  });

  describe('poison', () => {
    it('passes envelope poison through', () => {
      const p = poisonOf(
        translateMessage({ key: null, value: Buffer.from('nope') }, DEFAULT_ROUTES, options),
      );
      assert.equal(p.reason, 'unparseable');
    });

    it('an unknown event type → unknown-event-type, naming the known ones', () => {
      const p = poisonOf(
        translateMessage(
          headerMessage(undefined, { 'event-type': 'OrderShipped' }),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.equal(p.reason, 'unknown-event-type');
      assert.match(
        p.error,
        /"OrderShipped" has no route \(known: OrderPlaced, OrderCancelled, PayoutRequested, PayoutCancelled\)/,
      );
    });

    it('reports every invalid field with its path', () => {
      const data = orderPlacedData({
        email: 'not-an-email',
        items: [{ sku: 'a', quantity: -1, unitPriceMinor: 500 }],
        customerId: undefined,
      });
      const p = poisonOf(translateMessage(headerMessage(data), DEFAULT_ROUTES, options));
      assert.equal(p.reason, 'validation-failed');
      assert.match(p.error, /^OrderPlaced: /);
      assert.match(p.error, /data\.items\[0\]\.quantity: must be positive/);
      assert.match(p.error, /data\.email: must be an email address/);
      assert.match(p.error, /data\.customerId: is required/);
    });

    it('rejects a total that is not the sum of the lines', () => {
      const p = poisonOf(
        translateMessage(
          headerMessage(orderPlacedData({ totalMinor: 1 })),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.equal(p.reason, 'validation-failed');
      assert.match(p.error, /data\.totalMinor: must equal the sum/);
    });

    it('rejects data that is not an object for configured routes', () => {
      const routes = buildRouteTable({ Ping: 'ping' });
      const p = poisonOf(
        translateMessage(bodyMessage({ eventType: 'Ping', data: [1, 2] }), routes, options),
      );
      assert.equal(p.reason, 'validation-failed');
    });
  });

  describe('never throws', () => {
    const extraRoutes = buildRouteTable({ Deep: { workflowType: 'deep', identity: 'event-id' } });

    it('data nested 5,000 arrays deep on an extra route → poison, no throw', () => {
      const data = `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      const message = {
        ...headerMessage(undefined, { 'event-type': 'Deep' }),
        value: Buffer.from(data),
      };
      const p = poisonOf(translateMessage(message, extraRoutes, options));
      assert.equal(p.reason, 'unparseable');
      assert.match(p.error, /more than 64 levels deep/);
    });

    it('turns an unexpected exception into processing-failed with its cause', () => {
      const route = DEFAULT_ROUTES.get('OrderPlaced')!;
      const throwing: Route = {
        ...route,
        summarize: () => {
          throw new TypeError('boom');
        },
      };
      const routes = new Map([['OrderPlaced', throwing]]);
      const p = poisonOf(translateMessage(headerMessage(), routes, options));
      assert.equal(p.reason, 'processing-failed');
      assert.equal(p.error, 'translation threw: TypeError: boom');
    });
  });

  describe("fits Temporal's limits", () => {
    const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');
    /** A route whose entity and customer come from the data, as a domain's route names them. */
    const longRoutes = routeTableOf([
      defineRoute<Record<string, unknown>>({
        eventType: 'Note',
        workflow: 'note',
        identity: 'event-id',
        schema: anyJsonObjectSchema,
        entityId: (d) => d.orderId as string,
        customerId: (d) => d.customerId as string,
      }),
    ]);

    it('truncates the summary to 400 bytes on a code point boundary', () => {
      const t = startOf(
        translateMessage(
          headerMessage(
            { orderId: 'order-123', reason: '😀'.repeat(500) },
            { 'event-type': 'OrderCancelled', 'aggregate-version': '2' },
          ),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.ok(utf8(t.summary) <= 400, `${utf8(t.summary)} bytes`);
      // Shortened inside its code span: the fence that closes it is never cut off.
      assert.match(t.summary, /^Cancel order `order-123` · `(😀)+…`$/u);
    });

    it('keeps every code span of the summary closed however long and backtick-laden the IDs', () => {
      const t = startOf(
        translateMessage(
          headerMessage(
            { orderId: 'order-123', reason: '`'.repeat(300) + '<img src=x>' + '`'.repeat(300) },
            { 'event-type': 'OrderCancelled', 'aggregate-version': '2' },
          ),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.ok(utf8(t.summary) <= 400, `${utf8(t.summary)} bytes`);
      assert.ok(!t.summary.endsWith('…'), 'not cut after the spans: each span fits its budget');
      const reasonSpan = t.summary.split(' · ')[1]!;
      const fence = /^`+/.exec(reasonSpan)![0];
      assert.ok(reasonSpan.endsWith(fence), reasonSpan);
    });

    it('bounds each Keyword search attribute to 255 characters and 2 KiB, keeping it distinct', () => {
      const a = startOf(
        translateMessage(
          headerMessage(
            { orderId: 'é'.repeat(5000), customerId: 'c'.repeat(300) },
            { 'event-type': 'Note' },
          ),
          longRoutes,
          options,
        ),
      );
      const b = startOf(
        translateMessage(
          headerMessage(
            { orderId: `${'é'.repeat(4999)}e`, customerId: 'c' },
            { 'event-type': 'Note' },
          ),
          longRoutes,
          options,
        ),
      );
      for (const v of Object.values(a.searchAttributes)) {
        assert.ok(v.length <= 255 && utf8(v) <= 2048, `${v.length} characters`);
      }
      assert.match(a.searchAttributes.EntityId!, /^é+~[0-9a-f]{32}$/);
      assert.notEqual(a.searchAttributes.EntityId, b.searchAttributes.EntityId);
      assert.equal(b.searchAttributes.CustomerId, 'c', 'a short value is untouched');
    });

    it('keeps the workflow ID, details and memo small for the longest, oddest IDs', () => {
      const id = '😀'.repeat(100);
      const aggregateId = `"\\${'é'.repeat(198)}`;
      const t = startOf(
        translateMessage(
          bodyMessage(
            {
              eventId: id,
              aggregateId,
              aggregateVersion: 2 ** 52,
              // The built-in order routes require the order to be its aggregate.
              data: { ...orderPlacedData(), orderId: aggregateId },
            },
            null,
          ),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.ok(t.workflowId.length <= MAX_WORKFLOW_ID_LENGTH);
      assert.ok(
        utf8(detailsOf(t, { topic: 't'.repeat(249), partition: 1, offset: '1' })) <= 20_000,
      );
      assert.ok(utf8(JSON.stringify(t.memo)) <= 4096, `${utf8(JSON.stringify(t.memo))} bytes`);
      assert.ok(utf8(t.summary) <= 400);
    });

    it('a lone surrogate in an ID → validation-failed, not a workflow shared with U+FFFD', () => {
      for (const lone of ['\ud800', '\udc00']) {
        const p = poisonOf(
          translateMessage(
            bodyMessage({ eventId: lone, aggregateVersion: undefined }, null),
            DEFAULT_ROUTES,
            options,
          ),
        );
        assert.equal(p.reason, 'validation-failed');
      }
      const ok = startOf(
        translateMessage(
          bodyMessage({ eventId: '\ufffd', aggregateVersion: undefined }, null),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.equal(ok.workflowId, 'OrderPlaced:e:%EF%BF%BD');
    });

    it('an unversioned event ID shaped like <aggregate>@<version> gets its own workflow', () => {
      const versioned = startOf(translateMessage(headerMessage(), DEFAULT_ROUTES, options));
      const lookalike = startOf(
        translateMessage(
          headerMessage(undefined, { 'event-id': 'order-123@1', 'aggregate-version': undefined }),
          DEFAULT_ROUTES,
          options,
        ),
      );
      assert.notEqual(lookalike.identity, versioned.identity);
      assert.notEqual(lookalike.workflowId, versioned.workflowId);
    });
  });
});
