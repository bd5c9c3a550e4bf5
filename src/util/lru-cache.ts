/**
 * A map that keeps at most `capacity` entries, dropping the least recently used one (read or
 * written) when a new key would exceed it. A Map keeps insertion order, so moving an entry to
 * the end on each use makes its first key the least recently used.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  /** @param capacity most entries kept; at least 1. */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(
        `LruCache capacity must be a whole number of at least 1, got ${capacity}`,
      );
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key`, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key)!;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Sets `key` (now the most recently used), dropping the least recently used beyond capacity. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
