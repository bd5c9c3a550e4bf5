import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import {
  canonicalJson,
  CanonicalJsonError,
  deriveIdentity,
  deriveWorkflowId,
  fingerprint,
  eventIdentity,
  MAX_WORKFLOW_ID_LENGTH,
  versionIdentity,
} from '../../../src/events/identity';

describe('bridge: identity', () => {
  describe('deriveIdentity', () => {
    const event = { eventId: 'evt-1', aggregateId: 'order-123', aggregateVersion: 4 };
    it('is v:aggregateId@version under aggregate-version when a version is present', () => {
      assert.equal(deriveIdentity(event, 'aggregate-version'), 'v:order-123@4');
    });
    it('falls back to the event-ID identity when no version is present', () => {
      assert.equal(
        deriveIdentity({ eventId: 'evt-1', aggregateId: 'order-123' }, 'aggregate-version'),
        'e:evt-1',
      );
    });
    it('is always e:eventId under event-id', () => {
      assert.equal(deriveIdentity(event, 'event-id'), 'e:evt-1');
    });
    it('ignores the event ID under aggregate-version (re-emits under a fresh ID collide)', () => {
      assert.equal(
        deriveIdentity({ ...event, eventId: 'evt-2' }, 'aggregate-version'),
        deriveIdentity(event, 'aggregate-version'),
      );
    });
  });

  describe('deriveWorkflowId', () => {
    it('is readable: <type>:<identity>', () => {
      assert.equal(
        deriveWorkflowId('OrderPlaced', versionIdentity('order-123', 1)),
        'OrderPlaced:v:order-123@1',
      );
      assert.equal(
        deriveWorkflowId('OrderCancelled', '6f1c1f0e-8a3e-4c55-9d0c-3f1b2a4c5d6e'),
        'OrderCancelled:6f1c1f0e-8a3e-4c55-9d0c-3f1b2a4c5d6e',
      );
    });
    it('is deterministic', () => {
      assert.equal(
        deriveWorkflowId('OrderPlaced', 'a b/c'),
        deriveWorkflowId('OrderPlaced', 'a b/c'),
      );
    });
    it('differs by event type for one identity', () => {
      assert.notEqual(
        deriveWorkflowId('OrderPlaced', 'o@1'),
        deriveWorkflowId('OrderCancelled', 'o@1'),
      );
    });
    it('percent-encodes unsafe characters, including % itself, so the mapping stays injective', () => {
      assert.equal(deriveWorkflowId('OrderPlaced', 'a b/ü%'), 'OrderPlaced:a%20b%2F%C3%BC%25');
      assert.notEqual(deriveWorkflowId('T', 'a b'), deriveWorkflowId('T', 'a%20b'));
    });
    it('shortens very long IDs with a hash, deterministically and distinctly', () => {
      const a = deriveWorkflowId('OrderPlaced', versionIdentity('ü'.repeat(200), 1));
      const b = deriveWorkflowId('OrderPlaced', versionIdentity('ü'.repeat(200), 2));
      assert.ok(a.length <= MAX_WORKFLOW_ID_LENGTH);
      assert.match(a, /^OrderPlaced:v:%C3%BC(%C3%BC)*~[0-9a-f]{32}$/, 'cut between escapes');
      assert.notEqual(a, b);
      assert.equal(a, deriveWorkflowId('OrderPlaced', versionIdentity('ü'.repeat(200), 1)));
    });
  });

  describe('injectivity: no two different events share an identity or a workflow ID', () => {
    const events: Array<{ name: string; identity: string }> = [
      { name: 'order-9 version 1', identity: versionIdentity('order-9', 1) },
      { name: 'unversioned event ID order-9@1', identity: eventIdentity('order-9@1') },
      { name: 'event ID v:order-9@1', identity: eventIdentity('v:order-9@1') },
      { name: 'aggregate order-9@1 version 1', identity: versionIdentity('order-9@1', 1) },
      { name: 'aggregate order-9 version 11', identity: versionIdentity('order-9', 11) },
      { name: 'aggregate order-9@ version 11', identity: versionIdentity('order-9@', 11) },
      { name: 'event ID with ~', identity: eventIdentity('a~0123456789abcdef') },
      { name: 'event ID with %7E', identity: eventIdentity('a%7E0123456789abcdef') },
      { name: 'event ID U+FFFD', identity: eventIdentity('\ufffd') },
      { name: 'event ID é (NFC)', identity: eventIdentity('\u00e9') },
      { name: 'event ID é (NFD)', identity: eventIdentity('e\u0301') },
      { name: '40 × é', identity: eventIdentity('é'.repeat(40)) },
      { name: '40 × é and one more', identity: eventIdentity('é'.repeat(41)) },
      { name: '200 × x', identity: eventIdentity('x'.repeat(200)) },
      { name: '199 × x then y', identity: eventIdentity(`${'x'.repeat(199)}y`) },
      { name: '200 × emoji-ish', identity: eventIdentity('😀'.repeat(100)) },
      { name: '200-char aggregate v1', identity: versionIdentity('x'.repeat(200), 1) },
      { name: '200-char aggregate v2', identity: versionIdentity('x'.repeat(200), 2) },
      { name: '200-char aggregate ending ~', identity: versionIdentity(`${'x'.repeat(199)}~`, 1) },
    ];

    it('gives every case its own identity and its own workflow ID', () => {
      const identities = new Map<string, string>();
      const ids = new Map<string, string>();
      for (const e of events) {
        const id = deriveWorkflowId('OrderPlaced', e.identity);
        assert.equal(identities.get(e.identity), undefined, `${e.name}: identity collides`);
        assert.equal(ids.get(id), undefined, `${e.name}: workflow ID collides with ${ids.get(id)}`);
        identities.set(e.identity, e.name);
        ids.set(id, e.name);
      }
    });

    it('keeps every workflow ID within 255 ASCII characters', () => {
      for (const e of events) {
        const id = deriveWorkflowId('OrderPlaced', e.identity);
        assert.ok(id.length <= 255, `${e.name}: ${id.length} characters`);
        assert.match(id, /^[\x21-\x7e]+$/, `${e.name}: printable ASCII`);
      }
      // The longest route name with the longest IDs still fits.
      const longest = deriveWorkflowId('R'.repeat(100), versionIdentity('😀'.repeat(100), 2 ** 52));
      assert.ok(longest.length <= MAX_WORKFLOW_ID_LENGTH, `${longest.length}`);
      assert.equal(MAX_WORKFLOW_ID_LENGTH, 255);
    });

    it('uses ~ only as the hash separator of a shortened ID', () => {
      assert.equal(deriveWorkflowId('T', eventIdentity('a~b')), 'T:e:a%7Eb');
      assert.doesNotMatch(deriveWorkflowId('T', eventIdentity('x'.repeat(200))), /~/);
      assert.match(deriveWorkflowId('T', eventIdentity('é'.repeat(50))), /~[0-9a-f]{32}$/);
    });

    it('refuses a lone surrogate instead of encoding it like U+FFFD', () => {
      for (const lone of ['\ud800', '\udc00', 'a\ud800b']) {
        assert.throws(() => deriveWorkflowId('T', eventIdentity(lone)), RangeError);
      }
      assert.equal(deriveWorkflowId('T', eventIdentity('\ufffd')), 'T:e:%EF%BF%BD');
    });
  });

  describe('canonicalJson and fingerprint', () => {
    it('sorts keys recursively and drops whitespace; arrays keep their order', () => {
      assert.equal(
        canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } }),
        '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
      );
    });
    it('gives the same fingerprint whatever the key order', () => {
      const one = { orderId: 'o', items: [{ sku: 'a', quantity: 1 }], totalMinor: 5 };
      const two = { totalMinor: 5, items: [{ quantity: 1, sku: 'a' }], orderId: 'o' };
      assert.equal(fingerprint(one), fingerprint(two));
    });
    it('is sha256 hex of the canonical JSON', () => {
      const expected = createHash('sha256').update('{"a":1,"b":[2,1]}').digest('hex');
      assert.equal(fingerprint({ b: [2, 1], a: 1 }), expected);
      assert.match(expected, /^[0-9a-f]{64}$/);
    });
    it('changes when a value or the array order changes', () => {
      assert.notEqual(fingerprint({ a: [1, 2] }), fingerprint({ a: [2, 1] }));
      assert.notEqual(fingerprint({ a: 1 }), fingerprint({ a: '1' }));
    });
    it('drops undefined members as JSON does, and keeps null', () => {
      assert.equal(canonicalJson({ a: undefined, b: null }), '{"b":null}');
    });
    it('refuses values JSON cannot carry', () => {
      assert.throws(
        () => canonicalJson({ a: { b: NaN } }),
        (err: unknown) => {
          assert.ok(err instanceof CanonicalJsonError);
          assert.equal(err.path, 'a.b');
          return true;
        },
      );
      assert.throws(() => canonicalJson({ n: 1n }), CanonicalJsonError);
    });
    it('escapes strings like JSON.stringify', () => {
      assert.equal(canonicalJson({ 'k"': 'line\nbreak' }), '{"k\\"":"line\\nbreak"}');
    });
  });
});
