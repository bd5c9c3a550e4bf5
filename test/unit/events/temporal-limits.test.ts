import { strict as assert } from 'node:assert';
import {
  boundKeyword,
  MAX_KEYWORD_BYTES,
  MAX_KEYWORD_LENGTH,
  truncateText,
} from '../../../src/events/temporal-limits';

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

describe("bridge: Temporal's limits", () => {
  describe('truncateText', () => {
    it('leaves text that fits unchanged', () => {
      assert.equal(truncateText('short', 400), 'short');
      assert.equal(truncateText('é'.repeat(200), 400), 'é'.repeat(200), 'exactly 400 bytes');
    });
    it('cuts on a code point boundary and ends with an ellipsis', () => {
      const out = truncateText('é'.repeat(201), 400);
      assert.ok(utf8(out) <= 400);
      assert.equal(out, `${'é'.repeat(198)}…`);
      const emoji = truncateText('😀'.repeat(200), 400);
      assert.ok(utf8(emoji) <= 400);
      assert.ok((emoji as string & { isWellFormed(): boolean }).isWellFormed(), 'no half pair');
    });
    it('also bounds UTF-16 length', () => {
      assert.equal(truncateText('x'.repeat(10), Infinity, 5), 'xxxx…');
    });
  });

  describe('boundKeyword', () => {
    it('leaves a short well-formed value unchanged', () => {
      assert.equal(boundKeyword('order-123'), 'order-123');
      assert.equal(boundKeyword('x'.repeat(MAX_KEYWORD_LENGTH)), 'x'.repeat(MAX_KEYWORD_LENGTH));
    });
    it('shortens a long value to a head, ~ and a hash, within both limits', () => {
      for (const long of ['x'.repeat(256), '😀'.repeat(2000), 'é'.repeat(1025)]) {
        const out = boundKeyword(long);
        assert.ok(out.length <= MAX_KEYWORD_LENGTH && utf8(out) <= MAX_KEYWORD_BYTES);
        assert.match(out, /~[0-9a-f]{32}$/);
      }
      assert.notEqual(boundKeyword(`${'x'.repeat(300)}a`), boundKeyword(`${'x'.repeat(300)}b`));
    });
    it('keeps a lone surrogate apart from U+FFFD', () => {
      assert.equal(boundKeyword('\ufffd'), '\ufffd');
      const lone = boundKeyword('\ud800');
      assert.notEqual(lone, boundKeyword('\ufffd'));
      assert.match(lone, /^\ufffd~[0-9a-f]{32}$/);
      assert.notEqual(lone, boundKeyword('\udc00'));
    });
  });
});
