// The registry: one line per domain. The worker bundles every registered domain's workflows
// and registers its activities; the bridge routes its events; the processes (worker, bridge,
// ops, reconcile, demo, chaos, bench) take this list.
import type { Domain } from '../engine/define-domain';
import { routesOfDomains } from '../engine/registry';
import { withExtraRoutes, type RouteTable } from '../events/routes';
import { carts } from './carts';
import { orders } from './orders';
import { payouts } from './payouts';

export const DOMAINS: readonly Domain[] = [orders, payouts, carts];

/** The registered domains' routes: the bridge's table without BRIDGE_EXTRA_ROUTES. */
export const DEFAULT_ROUTES: RouteTable = routesOfDomains(DOMAINS);

/** The route table for a BRIDGE_EXTRA_ROUTES value (undefined or blank = only the domains'). */
export function buildRouteTable(extraRoutes?: unknown): RouteTable {
  return withExtraRoutes(DEFAULT_ROUTES, extraRoutes);
}
