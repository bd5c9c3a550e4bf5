import { strict as assert } from 'node:assert';
import { createPrng } from '../../../src/util/prng';
import { stepKey } from '../../../src/workflows/step-key';

const CASES = Number(process.env.KEY_CASES ?? 20_000);
const SEED = Number(process.env.KEY_SEED ?? Math.floor(Math.random() * 1e9));

/**
 * Characters that matter to the key's grammar and its escaping, a few plain ones, and the step
 * names themselves: a small alphabet, so that tuples which could run into each other (an item
 * holding `:<step>`, an entity ending in one) come up often.
 */
const ALPHABET = [':', '~', '%', '%3A', 'a', 'b', 'é', ' ', '0', 'a:b'];

describe(`idempotency keys are injective (${CASES} tuples from seed ${SEED}, KEY_SEED replays)`, () => {
  it('distinct (kind, entity, step, item) never share a key, however the IDs are made', () => {
    const next = createPrng(SEED);
    const rand = (n: number) => Math.floor(next() * n);
    const text = (max: number) => {
      // Mostly short IDs built from the grammar's characters; now and then one long enough to
      // be hashed (over 64 characters escaped for an item, over the key's 255 for an entity).
      const long = rand(10) === 0;
      const n = long ? 30 + rand(200) : 1 + rand(max);
      return Array.from({ length: n }, () => ALPHABET[rand(ALPHABET.length)]).join('');
    };
    const seen = new Map<string, string>();
    for (let i = 0; i < CASES; i++) {
      const kind = ['a', 'b'][rand(2)]!;
      const step = ['a', 'b'][rand(2)]!;
      const entity = text(3);
      const item = rand(3) === 0 ? undefined : text(3);
      // Hashed forms a crafted ID could imitate: a literal `~` and 32 hex digits.
      const crafted = rand(20) === 0 ? `~${'0123456789abcdef'.repeat(2)}` : undefined;
      const tuple = JSON.stringify([kind, crafted ?? entity, step, item]);
      const key = stepKey(kind, crafted ?? entity, step, item);
      const before = seen.get(key);
      assert.ok(
        before === undefined || before === tuple,
        `${before} and ${tuple} share the key ${key} (KEY_SEED=${SEED})`,
      );
      seen.set(key, tuple);
    }
  });

  it('the cases a review found: `:` inside IDs, and an item that looks like a hash', () => {
    assert.notEqual(
      stepKey('cart', 'c1', 'reserve', 'reserve:x'),
      stepKey('cart', 'c1:reserve', 'reserve', 'x'),
    );
    const long = 'L'.repeat(80);
    const hashed = stepKey('cart', 'c1', 'reserve', long);
    const lookalike = hashed.slice(hashed.lastIndexOf(':') + 1);
    assert.match(lookalike, /^~[0-9a-f]{32}$/);
    assert.notEqual(stepKey('cart', 'c1', 'reserve', lookalike), hashed);
  });
});
