/** Something that arrived at a place in line: smaller `seq` arrived first. */
export interface Sequenced {
  readonly seq: number;
}

/**
 * A binary min-heap by `seq`: the oldest of what one tenant has ready comes out first, in
 * O(log n), whatever order its entries became ready in (a key's next entry becomes ready only
 * when the one before it is handled, long after later keys' entries did).
 */
export class SeqHeap<T extends Sequenced> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]!.seq <= item.seq) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = item;
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const child = r < a.length && a[r]!.seq < a[l]!.seq ? r : l;
      if (a[child]!.seq >= last.seq) break;
      a[i] = a[child]!;
      i = child;
    }
    a[i] = last;
    return top;
  }

  /** Removes every item `drop` names (rare: a partition stalls or is lost); O(n). */
  removeWhere(drop: (item: T) => boolean): T[] {
    const kept = this.items.filter((x) => !drop(x));
    const removed = this.items.filter(drop);
    this.items.length = 0;
    for (const x of kept) this.push(x);
    return removed;
  }
}
