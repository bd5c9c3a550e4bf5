import { strict as assert } from 'node:assert';
import type { FramingFunction } from '../../../src/events/framing';
import { message, translateFramed } from './framing-helpers';
import { poisonOf, startOf } from './translate-helpers';

const data = { paymentId: 'pay-1', amountMinor: 500 };

describe('Debezium outbox framing', () => {
  it("reads Debezium's defaults: id header, aggregate key, eventType header, the payload as a JSON string", () => {
    // The payload column as Debezium's JsonConverter hands it over: a JSON string.
    const m = message('pay-1', JSON.stringify(data), { id: 'e-1', eventType: 'PaymentCaptured' });
    const start = startOf(translateFramed('debezium-outbox', m));
    assert.equal(start.eventId, 'e-1');
    assert.equal(start.aggregateId, 'pay-1');
    assert.equal(start.identity, 'e:e-1');
    assert.deepEqual(start.data, data);
    // table.expand.json.payload=true: the same payload as an object, the same fingerprint.
    const expanded = message('pay-1', data, { id: 'e-1', eventType: 'PaymentCaptured' });
    assert.equal(
      startOf(translateFramed('debezium-outbox', expanded)).fingerprint,
      start.fingerprint,
    );
  });

  it('takes the names Debezium is configured with: the type as an envelope field, other headers', () => {
    const spec = {
      kind: 'debezium-outbox',
      idHeader: 'eventId',
      eventType: { field: 'type' },
      versionHeader: 'version',
    } as const;
    const m = message(
      'pay-1',
      { payload: data, type: 'PaymentCaptured' },
      { eventId: 'e-2', version: '4' },
    );
    const start = startOf(translateFramed(spec, m));
    assert.equal(start.eventId, 'e-2');
    assert.equal(start.identity, 'v:pay-1@4');
    assert.deepEqual(start.data, data);
  });

  it("reads key and value as Kafka Connect's JsonConverter writes them, with schemas and without", () => {
    const headers = { id: 'e-1', eventType: 'PaymentCaptured' };
    const plain = startOf(translateFramed('debezium-outbox', message('pay-1', data, headers)));
    const text = JSON.stringify(data);
    const cases: Array<[string, unknown, unknown]> = [
      // schemas.enable=true (Connect's default): {schema, payload} around key and value.
      [
        JSON.stringify({ schema: { type: 'string', optional: false }, payload: 'pay-1' }),
        { schema: { type: 'string', optional: true }, payload: text },
        'string payload column',
      ],
      [
        JSON.stringify({ schema: { type: 'string', optional: false }, payload: 'pay-1' }),
        {
          schema: {
            type: 'struct',
            fields: [
              { field: 'paymentId', type: 'string', optional: false },
              { field: 'amountMinor', type: 'int64', optional: false },
            ],
            optional: false,
          },
          payload: data,
        },
        'table.expand.json.payload=true',
      ],
      // schemas.enable=false: the key a JSON string, the payload column a JSON string.
      [JSON.stringify('pay-1'), text, 'schemas.enable=false'],
    ];
    for (const [key, value, what] of cases) {
      const start = startOf(
        translateFramed('debezium-outbox', message(key as string, value, headers)),
      );
      assert.equal(start.aggregateId, 'pay-1', what as string);
      assert.equal(start.fingerprint, plain.fingerprint, `${what as string}: the same event`);
    }
    const numeric = message(
      JSON.stringify({ schema: { type: 'int64', optional: false }, payload: 42 }),
      { ...data, paymentId: '42' },
      headers,
    );
    assert.equal(startOf(translateFramed('debezium-outbox', numeric)).aggregateId, '42');
  });

  it("the type as an envelope field inside JsonConverter's envelope; a payload that only looks like one is data", () => {
    const spec = { kind: 'debezium-outbox', eventType: { field: 'eventType' } } as const;
    const wrapped = {
      schema: {
        type: 'struct',
        fields: [
          { field: 'payload', type: 'string', optional: true },
          { field: 'eventType', type: 'string', optional: false },
        ],
      },
      payload: { payload: JSON.stringify(data), eventType: 'PaymentCaptured' },
    };
    const start = startOf(translateFramed(spec, message('pay-1', wrapped, { id: 'e-3' })));
    assert.deepEqual(start.data, data);
    // A payload whose own fields are `schema` and `payload`, the schema no Connect schema.
    const looksLike = { schema: { version: 2 }, payload: 'x' };
    const poison = poisonOf(
      translateFramed(
        'debezium-outbox',
        message('pay-1', looksLike, { id: 'e-4', eventType: 'PaymentCaptured' }),
      ),
    );
    assert.equal(poison.reason, 'validation-failed', 'validated as the data it is');
  });

  it('poison: no id header, no type, no key, a payload that is no JSON', () => {
    const reason = (m: ReturnType<typeof message>) =>
      poisonOf(translateFramed('debezium-outbox', m)).reason;
    assert.equal(
      reason(message('pay-1', data, { eventType: 'PaymentCaptured' })),
      'missing-identity',
    );
    assert.equal(reason(message('pay-1', data, { id: 'e-1' })), 'missing-identity');
    assert.equal(
      reason(message(null, data, { id: 'e-1', eventType: 'PaymentCaptured' })),
      'missing-identity',
    );
    assert.equal(
      reason(message('pay-1', '{nope', { id: 'e-1', eventType: 'PaymentCaptured' })),
      'unparseable',
    );
    assert.equal(
      reason(message('pay-1', { paymentId: 'pay-1' }, { id: 'e-1', eventType: 'PaymentCaptured' })),
      'validation-failed',
    );
  });
});

describe('a framing function', () => {
  // A team's plain JSON: the business field is the identity and the aggregate.
  const plain: FramingFunction = (m) => {
    const value = m.value as { paymentId?: string };
    return {
      eventType: 'PaymentCaptured',
      eventId: value.paymentId!,
      aggregateId: value.paymentId!,
      data: value,
    };
  };

  it('gives the event type, identity, aggregate and data of plain JSON', () => {
    const start = startOf(translateFramed(plain, message('pay-1', data)));
    assert.equal(start.identity, 'e:pay-1');
    assert.equal(start.aggregateId, 'pay-1');
    assert.deepEqual(start.data, data);
  });

  it('an aggregate and version without an event ID names the event aggregate@version', () => {
    const versioned: FramingFunction = (m) => ({
      eventType: 'PaymentCaptured',
      aggregateId: m.key!,
      aggregateVersion: Number(m.header('v')),
      data: m.value,
    });
    const start = startOf(translateFramed(versioned, message('pay-1', data, { v: '2' })));
    assert.equal(start.identity, 'v:pay-1@2');
    assert.equal(start.eventId, 'pay-1@2');
  });

  it('poison: a field it cannot find is missing-identity, a throw is validation-failed with its message', () => {
    assert.equal(
      poisonOf(translateFramed(plain, message(null, { amountMinor: 1 }))).reason,
      'missing-identity',
    );
    const throwing: FramingFunction = () => {
      throw new Error('no payment here');
    };
    const poison = poisonOf(translateFramed(throwing, message('pay-1', data)));
    assert.equal(poison.reason, 'validation-failed');
    assert.match(poison.error, /framing: no payment here/);
    const noId: FramingFunction = (m) => ({
      eventType: 'PaymentCaptured',
      aggregateId: 'pay-1',
      data: m.value,
    });
    assert.equal(
      poisonOf(translateFramed(noId, message('pay-1', data))).reason,
      'missing-identity',
    );
  });
});
