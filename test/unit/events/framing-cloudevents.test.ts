import { strict as assert } from 'node:assert';
import { message, translateFramed } from './framing-helpers';
import { poisonOf, startOf } from './translate-helpers';

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
    assert.equal(start.identity, 'e:evt-1');
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
    assert.equal(plain.identity, 'e:evt-1');
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
