import { strict as assert } from 'node:assert';
import { z } from 'zod';
import { defineRoute } from '../../../src/events/define-route';
import { checkTopicFramings, FramingConflictError, routeTableOf } from '../../../src/events/routes';
import { message, translateFramed } from './framing-helpers';
import { poisonOf } from './translate-helpers';

const route = (eventType: string, extra: Partial<Parameters<typeof defineRoute>[0]> = {}) =>
  defineRoute({ eventType, schema: z.object({}), workflow: 'w', ...extra });

describe('framings per topic', () => {
  it('several framings share a bridge when each has its own topics', () => {
    const table = routeTableOf([
      route('OrderPlaced'),
      route('PaymentCaptured', { framing: 'cloudevents', topics: ['payments'] }),
      route('ShipmentSent', { framing: 'debezium-outbox', topics: ['outbox.event.shipment'] }),
    ]);
    const subscribed = ['orders', 'payments', 'outbox.event.shipment'];
    // The envelope route names no topic: it reads KAFKA_TOPICS (orders), not the others'.
    assert.doesNotThrow(() => checkTopicFramings(table, subscribed, ['orders']));
    assert.throws(() => checkTopicFramings(table, subscribed), FramingConflictError);
  });

  it('routes of different framings on one topic stop the bridge at start, naming the topic and routes', () => {
    const table = routeTableOf([
      route('OrderPlaced'),
      route('PaymentCaptured', { framing: 'cloudevents' }),
    ]);
    assert.throws(
      () => checkTopicFramings(table, ['orders']),
      (err: unknown) =>
        err instanceof FramingConflictError &&
        err.topic === 'orders' &&
        /OrderPlaced: envelope, PaymentCaptured: cloudevents/.test(err.message),
    );
  });

  it('equal options are one framing; two functions are two', () => {
    const same = routeTableOf([
      route('A', { framing: { kind: 'cloudevents', version: 'sequence' } }),
      route('B', { framing: { kind: 'cloudevents', version: 'sequence' } }),
    ]);
    assert.doesNotThrow(() => checkTopicFramings(same, ['t']));
    const two = routeTableOf([
      route('A', {
        framing: (m) => ({ eventType: 'A', eventId: 'x', aggregateId: 'x', data: m.value }),
      }),
      route('B', {
        framing: (m) => ({ eventType: 'B', eventId: 'x', aggregateId: 'x', data: m.value }),
      }),
    ]);
    assert.throws(() => checkTopicFramings(two, ['t']), FramingConflictError);
  });

  it('a wire-format value with no registry is unparseable, naming the setting and the schema ID', () => {
    const value = Buffer.from([0, 0, 0, 0, 42, 2, 4]);
    const poison = poisonOf(translateFramed('envelope', message('pay-1', value)));
    assert.equal(poison.reason, 'unparseable');
    assert.match(poison.error, /schema ID 42.*SCHEMA_REGISTRY_URL/);
  });
});
