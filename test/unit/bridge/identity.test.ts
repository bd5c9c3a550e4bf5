import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import {
  canonicalJson,
  CanonicalJsonError,
  deriveIdentity,
  deriveWorkflowId,
  fingerprint,
  MAX_WORKFLOW_ID_LENGTH,
} from '../../../src/kafka-bridge/identity';

describe('bridge: identity', () => {
  describe('deriveIdentity', () => {
    const event = { eventId: 'evt-1', aggregateId: 'order-123', aggregateVersion: 4 };
    it('is aggregateId@version under aggregate-version when a version is present', () => {
      assert.equal(deriveIdentity(event, 'aggregate-version'), 'order-123@4');
    });
    it('falls back to the event ID when no version is present', () => {
      assert.equal(
        deriveIdentity({ eventId: 'evt-1', aggregateId: 'order-123' }, 'aggregate-version'),
        'evt-1',
      );
    });
    it('is always the event ID under event-id', () => {
      assert.equal(deriveIdentity(event, 'event-id'), 'evt-1');
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
      assert.equal(deriveWorkflowId('OrderPlaced', 'order-123@1'), 'OrderPlaced:order-123@1');
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
      const a = deriveWorkflowId('OrderPlaced', `${'ü'.repeat(200)}@1`);
      const b = deriveWorkflowId('OrderPlaced', `${'ü'.repeat(200)}@2`);
      assert.equal(a.length, MAX_WORKFLOW_ID_LENGTH);
      assert.match(a, /^OrderPlaced:%C3%BC.*~[0-9a-f]{32}$/);
      assert.notEqual(a, b);
      assert.equal(a, deriveWorkflowId('OrderPlaced', `${'ü'.repeat(200)}@1`));
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
