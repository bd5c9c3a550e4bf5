// What the bridge starts next, across every partition it reads: class first (live before
// replays and backfills), then the tenants in weighted turns (TENANT_WEIGHTS), then within a
// tenant the oldest ready record (only a key's head is ever ready: read-ahead-window.ts).
// Pure; a property test checks the shares against the weights.
import { SeqHeap, type Sequenced } from './seq-heap';
import type { StartClass } from './read-ahead-window';

/** A record ready to start, as the queue sees it. */
export interface Startable extends Sequenced {
  readonly cls: StartClass;
  readonly tenant: string;
}

/** The classes in the order they go: every ready live record before any background one. */
export const START_CLASSES: readonly StartClass[] = ['live', 'background'];

/** Whether a start of `tenant` in `cls` may begin now (the open-run caps: admission.ts). */
export type Admits = (tenant: string, cls: StartClass) => boolean;

/** One class's tenants: their ready records and their place in the weighted turns. */
class ClassQueue<E extends Startable> {
  readonly ready = new Map<string, SeqHeap<E>>();
  /** Start-time fair queuing: the class's virtual time and each tenant's finish tag. */
  virtualTime = 0;
  readonly finish = new Map<string, number>();
  size = 0;
}

/**
 * Weighted turns between tenants by start-time fair queuing: a tenant's next start is tagged
 * `max(virtual time, its last finish)`, the smallest tag goes first, and its finish moves on
 * by 1/weight. Between two tenants that both have records ready, the starts each got, divided
 * by its weight, never differ by more than 1/w₁ + 1/w₂; a tenant that was idle comes back at
 * the current virtual time, with no credit saved up and no debt.
 */
export class StartQueue<E extends Startable> {
  private readonly classes = new Map<StartClass, ClassQueue<E>>(
    START_CLASSES.map((c) => [c, new ClassQueue<E>()]),
  );
  private picks = 0;

  /**
   * @param weightOf a tenant's weight (TENANT_WEIGHTS; 1 for the others). Must be positive.
   */
  constructor(private readonly weightOf: (tenant: string) => number) {}

  /** Records ready to start, in every class. */
  get size(): number {
    let n = 0;
    for (const q of this.classes.values()) n += q.size;
    return n;
  }

  /** `entry` is ready: its group's head, not in flight. */
  add(entry: E): void {
    const q = this.classes.get(entry.cls)!;
    let heap = q.ready.get(entry.tenant);
    if (!heap) q.ready.set(entry.tenant, (heap = new SeqHeap<E>()));
    heap.push(entry);
    q.size++;
  }

  /**
   * The next record to start, taken out of the queue, or undefined when nothing ready is
   * admitted. Classes in order; within the first class that has an admitted tenant with a
   * ready record, that tenant of the smallest start tag, and its oldest record.
   */
  pick(admits: Admits = () => true): E | undefined {
    for (const cls of START_CLASSES) {
      const q = this.classes.get(cls)!;
      if (q.size === 0) continue;
      let best: { tenant: string; tag: number; heap: SeqHeap<E> } | undefined;
      for (const [tenant, heap] of q.ready) {
        if (heap.size === 0 || !admits(tenant, cls)) continue;
        const tag = Math.max(q.virtualTime, q.finish.get(tenant) ?? 0);
        if (
          !best ||
          tag < best.tag ||
          (tag === best.tag && heap.peek()!.seq < best.heap.peek()!.seq)
        )
          best = { tenant, tag, heap };
      }
      if (!best) continue;
      const entry = best.heap.pop()!;
      q.size--;
      if (best.heap.size === 0) q.ready.delete(best.tenant);
      q.virtualTime = best.tag;
      q.finish.set(best.tenant, best.tag + 1 / this.weightOf(best.tenant));
      if (++this.picks % 1024 === 0) this.forgetIdle();
      return entry;
    }
    return undefined;
  }

  /** Takes out every ready record `drop` names (a partition that stalled or was lost). */
  removeWhere(drop: (entry: E) => boolean): E[] {
    const removed: E[] = [];
    for (const q of this.classes.values())
      for (const [tenant, heap] of q.ready) {
        const gone = heap.removeWhere(drop);
        q.size -= gone.length;
        removed.push(...gone);
        if (heap.size === 0) q.ready.delete(tenant);
      }
    return removed;
  }

  /**
   * Forgets the tags of tenants with nothing ready whose finish is behind the virtual time:
   * they would come back at the virtual time anyway, so the map stays as small as the
   * tenants that are busy now.
   */
  private forgetIdle(): void {
    for (const q of this.classes.values())
      for (const [tenant, f] of q.finish)
        if (f <= q.virtualTime && !q.ready.has(tenant)) q.finish.delete(tenant);
  }
}
