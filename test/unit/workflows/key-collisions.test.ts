// Finding: stepKey (step-key.ts) is not injective. `:` is kept as is in entity IDs and items,
// and `~<32 hex>` (the hashed form of a long item or entity ID) is also a literal an item or
// entity ID may hold. Two different intents then share one idempotency key: the provider
// answers the second with the first's result (a step gets another step's result).
import { strict as assert } from 'node:assert';
import { stepKey } from '../../../src/workflows/step-key';
import { sha256Hex } from '../../../src/util/sha256';

describe('idempotency keys of different intents', () => {
  it('an entity ID with `:` and an item with `:` give different keys', () => {
    // cart "c1", line "reserve:x"  vs  cart "c1:reserve", line "x"
    const a = stepKey('cart', 'c1', 'reserve', 'reserve:x');
    const b = stepKey('cart', 'c1:reserve', 'reserve', 'x');
    assert.notEqual(a, b, `both are ${a}`);
  });

  it('a short item that looks like a hash and a long item give different keys', () => {
    const long = 'L'.repeat(80);
    const crafted = `~${sha256Hex(long).slice(0, 32)}`;
    const a = stepKey('cart', 'c1', 'reserve', long);
    const b = stepKey('cart', 'c1', 'reserve', crafted);
    assert.notEqual(a, b, `both are ${a}`);
  });
});
