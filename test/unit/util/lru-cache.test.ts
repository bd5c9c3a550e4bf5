import { strict as assert } from 'node:assert';
import { LruCache } from '../../../src/util/lru-cache';

describe('LruCache: at most `capacity` entries, the least recently used dropped first', () => {
  it('drops the least recently written entry beyond capacity', () => {
    const cache = new LruCache<number, string>(2);
    cache.set(1, 'a');
    cache.set(2, 'b');
    cache.set(3, 'c');
    assert.equal(cache.size, 2);
    assert.equal(cache.get(1), undefined);
    assert.deepEqual([cache.get(2), cache.get(3)], ['b', 'c']);
  });

  it('a read makes an entry the most recently used, so another one goes', () => {
    const cache = new LruCache<number, string>(2);
    cache.set(1, 'a');
    cache.set(2, 'b');
    assert.equal(cache.get(1), 'a');
    cache.set(3, 'c');
    assert.deepEqual([cache.get(1), cache.get(2), cache.get(3)], ['a', undefined, 'c']);
  });

  it('rewriting a key replaces it without growing', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('k', 1);
    cache.set('k', 2);
    assert.equal(cache.size, 1);
    assert.equal(cache.get('k'), 2);
  });

  it('refuses a capacity below 1', () => {
    assert.throws(() => new LruCache(0), /capacity must be a whole number of at least 1/);
  });
});
