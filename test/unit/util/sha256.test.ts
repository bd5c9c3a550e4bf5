import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { createPrng } from '../../../src/util/prng';
import { sha256Hex, utf8Bytes } from '../../../src/util/sha256';

const nodeSha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('pure SHA-256 (usable in workflow code)', () => {
  it('matches node:crypto on the FIPS vectors and on every padding boundary', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(
      sha256Hex('abc'),
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    for (let n = 0; n <= 200; n++) {
      const text = 'x'.repeat(n);
      assert.equal(sha256Hex(text), nodeSha256(text), `length ${n}`);
    }
  });

  it('hashes strings as UTF-8, as node:crypto does, including astral and lone surrogates', () => {
    const samples = [
      'é'.repeat(40),
      '日本語の注文',
      '🧾 order 🧾',
      'a\u0000b',
      '\ud800x',
      'x\udfff',
    ];
    for (const s of samples) {
      assert.deepEqual(Buffer.from(utf8Bytes(s)), Buffer.from(s, 'utf8'), JSON.stringify(s));
      assert.equal(sha256Hex(s), nodeSha256(s), JSON.stringify(s));
    }
  });

  it('matches node:crypto on random byte strings up to 1 KiB', () => {
    const next = createPrng(42);
    for (let i = 0; i < 300; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(next() * 1024) }, () =>
        Math.floor(next() * 256),
      );
      assert.equal(sha256Hex(bytes), nodeSha256(bytes), `sample ${i}`);
    }
  });
});
