import { strict as assert } from 'node:assert';
import { translateMessage } from '../../../src/events/translate';
import { buildRouteTable, DEFAULT_ROUTES } from '../../../src/domains';
import { fingerprint } from '../../../src/events/identity';
import type { Route } from '../../../src/events/routes';
import { bodyMessage, EVENT_ID, headerMessage, orderPlacedData } from './fixtures';
import { options, poisonOf, startOf } from './translate-helpers';

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
        /"OrderShipped" has no route \(known: OrderPlaced, OrderCancelled, PayoutRequested, PayoutCancelled, CartCheckedOut, CartCancelled\)/,
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
});
