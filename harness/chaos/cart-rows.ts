import { carts } from '../../src/domains/carts';
import { CART_INVARIANTS } from '../../src/domains/carts/invariants';
import type { Discrepancy } from '../../src/reconcile/facts';

/**
 * The chaos table's cart rows: reconcile's discrepancies that the cart domain's invariants
 * found, counted by invariant, every invariant listed (0 included). A breakdown of the
 * classes they are filed under, not more violations.
 */
export function cartInvariantRows(discrepancies: readonly Discrepancy[]): [string, number][] {
  const counts = new Map<string, number>(CART_INVARIANTS.map((i) => [i, 0]));
  const mine = `${carts.name}/`;
  for (const d of discrepancies) {
    if (!d.invariant?.startsWith(mine)) continue;
    const name = d.invariant.slice(mine.length);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts];
}
