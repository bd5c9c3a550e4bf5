import { strict as assert } from 'node:assert';
import { defineRoute } from '../../../src/events/define-route';
import { routeTableOf } from '../../../src/events/routes';
import { translateMessage } from '../../../src/events/translate';
import { message, payment, translateFramed } from './framing-helpers';
import { options, poisonOf, startOf } from './translate-helpers';

const data = { paymentId: 'pay-1', amountMinor: 500 };

function binary(
  headers: Record<string, string> = {},
  key: string | null = 'pay-1',
  value: unknown = data,
) {
  return message(key, value, {
    ce_specversion: '1.0',
    ce_id: 'evt-1',
    ce_source: '/payments',
    ce_type: 'PaymentCaptured',
    ce_subject: 'pay-1',
    'content-type': 'application/json',
    ...headers,
  });
}

function structured(event: Record<string, unknown>, key: string | null = 'pay-1') {
  return message(
    key,
    {
      specversion: '1.0',
      id: 'evt-1',
      source: '/payments',
      type: 'PaymentCaptured',
      subject: 'pay-1',
      ...event,
    },
    { 'content-type': 'application/cloudevents+json; charset=utf-8' },
  );
}

describe('CloudEvents framing', () => {
  it('binary mode: ce_id is the event ID, ce_type the event type, ce_subject the aggregate, the value the data', () => {
    const start = startOf(translateFramed('cloudevents', binary()));
    assert.equal(start.eventId, 'evt-1');
    assert.equal(start.eventType, 'PaymentCaptured');
    assert.equal(start.aggregateId, 'pay-1');
    assert.equal(start.identity, 'e:/payments\u001fevt-1', 'source and id');
    assert.equal(start.formerIdentity, 'e:evt-1', 'what a bridge keyed it by before');
    assert.equal(start.memo.eventSource, '/payments');
    assert.deepEqual(start.data, data);
  });

  it('structured mode reads the same event from application/cloudevents+json, data or data_base64', () => {
    const plain = startOf(translateFramed('cloudevents', structured({ data })));
    const base64 = startOf(
      translateFramed(
        'cloudevents',
        structured({
          datacontenttype: 'application/json',
          data_base64: Buffer.from(JSON.stringify(data)).toString('base64'),
        }),
      ),
    );
    assert.equal(plain.identity, 'e:/payments\u001fevt-1');
    assert.equal(plain.fingerprint, base64.fingerprint, 'one event, one fingerprint');
    assert.equal(plain.fingerprint, startOf(translateFramed('cloudevents', binary())).fingerprint);
  });

  it('a version extension makes the identity aggregate@version, in either mode', () => {
    const spec = { kind: 'cloudevents', version: 'sequence' } as const;
    assert.equal(
      startOf(translateFramed(spec, binary({ ce_sequence: '3' }))).identity,
      'v:pay-1@3',
    );
    assert.equal(
      startOf(translateFramed(spec, structured({ data, sequence: 3 }))).identity,
      'v:pay-1@3',
    );
    assert.equal(
      poisonOf(translateFramed(spec, binary({ ce_sequence: 'x' }))).reason,
      'validation-failed',
    );
  });

  it('without a subject the key is the aggregate; without both, missing-identity', () => {
    const noSubject = binary();
    delete noSubject.headers!.ce_subject;
    assert.equal(startOf(translateFramed('cloudevents', noSubject)).aggregateId, 'pay-1');
    const neither = binary({}, null);
    delete neither.headers!.ce_subject;
    assert.equal(poisonOf(translateFramed('cloudevents', neither)).reason, 'missing-identity');
  });

  it('poison: a missing attribute, another specversion, a subject that is not the key, data that is not JSON', () => {
    const noId = binary();
    delete noId.headers!.ce_id;
    assert.match(
      poisonOf(translateFramed('cloudevents', noId)).error,
      /CloudEvents id: missing \(header ce_id\)/,
    );
    assert.equal(
      poisonOf(translateFramed('cloudevents', binary({ ce_specversion: '0.3' }))).reason,
      'validation-failed',
    );
    assert.equal(
      poisonOf(translateFramed('cloudevents', binary({}, 'pay-2'))).reason,
      'key-mismatch',
    );
    assert.equal(
      poisonOf(translateFramed('cloudevents', binary({ 'content-type': 'text/plain' }))).reason,
      'unparseable',
    );
    assert.equal(
      poisonOf(translateFramed('cloudevents', binary({}, 'pay-1', Buffer.from('{nope')))).reason,
      'unparseable',
    );
    assert.equal(
      poisonOf(translateFramed('cloudevents', structured({ data: { paymentId: 'pay-1' } }))).reason,
      'validation-failed',
    );
  });

  it('two sources with the same id are two events (the spec makes source + id unique), in either mode', () => {
    const a = startOf(translateFramed('cloudevents', binary()));
    const b = startOf(translateFramed('cloudevents', binary({ ce_source: '/refunds' })));
    const bStructured = startOf(
      translateFramed('cloudevents', structured({ data, source: '/refunds' })),
    );
    assert.notEqual(a.identity, b.identity);
    assert.notEqual(a.workflowId, b.workflowId);
    assert.equal(b.identity, bStructured.identity, 'binary and structured copies stay one event');
    assert.equal(a.fingerprint, b.fingerprint, 'equal data, and still two events');
    // The separator is a character no ID or source may hold: `a`+`b␟c` is not `a␟b`+`c`.
    assert.equal(
      poisonOf(translateFramed('cloudevents', binary({ ce_source: 'a\u001fb' }))).reason,
      'validation-failed',
    );
    assert.equal(
      poisonOf(translateFramed('cloudevents', binary({ ce_source: 'x'.repeat(201) }))).reason,
      'validation-failed',
    );
  });

  it("a route's identity function sees the source", () => {
    const route = defineRoute({
      eventType: 'PaymentCaptured',
      schema: payment,
      workflow: 'capture',
      framing: 'cloudevents',
      identity: (event) => `${event.source}/${event.eventId}`,
    });
    const start = startOf(translateMessage(binary(), routeTableOf([route]), options));
    assert.equal(start.identity, 'c:/payments/evt-1');
    assert.equal(start.formerIdentity, undefined, 'a custom identity never had a former one');
  });

  it('types as CloudEvents allows them: reverse-DNS, a URN, a URL; their workflow IDs keep one `:` after the prefix', () => {
    for (const type of [
      'com.example.payment.captured',
      'urn:example:payment:captured',
      'https://example.com/events/payment-captured?v=1#x',
    ]) {
      const route = defineRoute({
        eventType: type,
        schema: payment,
        workflow: 'capture',
        framing: 'cloudevents',
      });
      const start = startOf(
        translateMessage(binary({ ce_type: type }), routeTableOf([route]), options),
      );
      assert.equal(start.eventType, type);
      assert.equal(start.searchAttributes.EventType, type);
      const [prefix, ...rest] = start.workflowId.split(':');
      assert.equal(decodeURIComponent(prefix!), type, start.workflowId);
      assert.equal(rest[0], 'e', `${start.workflowId}: the identity follows the first \`:\``);
    }
    for (const type of ['Payment Captured', 'PaymentCaptured"', '1payment', 'a<b>', 'a\\b'])
      assert.equal(
        poisonOf(translateFramed('cloudevents', binary({ ce_type: type }))).reason,
        'validation-failed',
        type,
      );
  });

  it('the data of a binary event may come from the registry (content type then names the format)', () => {
    const m = binary(
      { 'content-type': 'application/avro' },
      'pay-1',
      Buffer.from([0, 0, 0, 0, 7, 1]),
    );
    const start = startOf(
      translateFramed('cloudevents', m, { value: data, schemaId: 7, format: 'AVRO' }),
    );
    assert.deepEqual(start.data, data);
  });
});
