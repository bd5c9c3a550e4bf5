import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import {
  MAX_KEY_LENGTH,
  stepKey,
  stepKeys,
  type StepName,
} from '../../../src/domains/orders/workflows/order-definitions';
import { stepKey as realStepKey } from '../../../src/workflows/step-key';

const STEPS: StepName[] = ['reserve', 'charge', 'email', 'announce', 'refund', 'release'];
/** What an HTTP header carries safely: printable ASCII. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

describe('stepKey: idempotency keys from the order and its step', () => {
  it('is order:<orderId>:<step> for ordinary order IDs, whatever workflow asks', () => {
    assert.equal(stepKey('order-123', 'charge'), 'order:order-123:charge');
    assert.equal(stepKey('o_1@b', 'reserve'), 'order:o_1@b:reserve');
    assert.deepEqual(stepKeys('o-9'), {
      reserve: 'order:o-9:reserve',
      charge: 'order:o-9:charge',
      email: 'order:o-9:email',
      announce: 'order:o-9:announce',
      refund: 'order:o-9:refund',
      release: 'order:o-9:release',
    });
  });

  it('escapes what a header cannot carry, keeping distinct orders distinct', () => {
    assert.equal(stepKey('é', 'charge'), 'order:%C3%A9:charge');
    assert.equal(stepKey('a b', 'email'), 'order:a%20b:email');
    assert.equal(stepKey('%C3%A9', 'charge'), 'order:%25C3%25A9:charge', '% itself is escaped');
    assert.notEqual(stepKey('é', 'charge'), stepKey('%C3%A9', 'charge'));
    assert.equal(stepKey('a\u0000b', 'charge'), 'order:a%00b:charge');
    // The key's own separators never pass as they are: `:` between parts, `~` before a hash.
    assert.equal(stepKey('o_1:a~b', 'reserve'), 'order:o_1%3Aa%7Eb:reserve');
  });

  it('stays within 255 header-safe characters for any order ID, with a readable head', () => {
    const ids = [
      'é'.repeat(40),
      'é'.repeat(200),
      'x'.repeat(255),
      'x'.repeat(10_000),
      '日本'.repeat(300),
      '🧾'.repeat(100),
      '%'.repeat(100),
    ];
    for (const id of ids) {
      for (const step of STEPS) {
        const key = stepKey(id, step);
        assert.ok(key.length <= MAX_KEY_LENGTH, `${key.length} > 255 for ${id.slice(0, 10)}…`);
        assert.match(key, HEADER_SAFE);
        assert.ok(key.startsWith('order:'), key);
        assert.ok(key.endsWith(`:${step}`), key);
      }
    }
    const long = stepKey('x'.repeat(10_000), 'charge');
    const hash = createHash('sha256').update('x'.repeat(10_000)).digest('hex').slice(0, 32);
    assert.ok(long.endsWith(`~${hash}:charge`), long);
    assert.ok(long.startsWith('order:xxxxxxxx'), long);
    assert.equal(long.length, MAX_KEY_LENGTH);
    // A cut never leaves half an escape behind the readable head.
    assert.doesNotMatch(stepKey('é'.repeat(200), 'refund'), /%[0-9A-F]?~/);
  });

  it('is deterministic and tells long IDs that share a head apart', () => {
    const a = 'y'.repeat(300) + 'a';
    const b = 'y'.repeat(300) + 'b';
    assert.equal(stepKey(a, 'charge'), stepKey(a, 'charge'));
    assert.notEqual(stepKey(a, 'charge'), stepKey(b, 'charge'));
  });

  it('gives each item of a repeated step its own key, within the limit whatever the IDs', () => {
    const key = (entity: string, item: string) => realStepKey('cart', entity, 'reserve', item);
    assert.equal(key('c-1', 'apple'), 'cart:c-1:reserve:apple');
    assert.notEqual(key('c-1', 'apple'), key('c-1', 'pear'));
    assert.equal(key('c-1', 'sku 1/é'), 'cart:c-1:reserve:sku%201/%C3%A9');
    const longItem = key('c-1', 'i'.repeat(500));
    assert.match(longItem, /^cart:c-1:reserve:~[0-9a-f]{32}$/);
    const both = key('e'.repeat(400), 'i'.repeat(500));
    assert.ok(both.length <= MAX_KEY_LENGTH, both);
    assert.ok(
      both.endsWith(
        ':reserve:~' + createHash('sha256').update('i'.repeat(500)).digest('hex').slice(0, 32),
      ),
    );
    assert.throws(() => key('c-1', ''), /must not be empty/);
  });
});
