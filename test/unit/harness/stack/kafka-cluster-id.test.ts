import { strict as assert } from 'node:assert';
import { newClusterId } from '../../../../harness/stack/kafka';

describe('newClusterId: an id the storage tool takes', () => {
  it('draws again when the id would start with "-" (which the format command reads as an option)', () => {
    // 0xf8 as the first byte is base64url '-' as the first character.
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0x10)];
    let calls = 0;
    const id = newClusterId(() => draws[calls++]!);
    assert.equal(calls, 2, 'the dash-led draw was refused');
    assert.equal(id, Buffer.alloc(16, 0x10).toString('base64url'));
    assert.ok(Buffer.alloc(16, 0xf8).toString('base64url').startsWith('-'));
  });

  it('is 22 base64url characters, never dash-led, over many draws', () => {
    for (let i = 0; i < 2000; i++) {
      const id = newClusterId();
      assert.match(id, /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});
