import type { ActivityDeps } from '../activities';
import { createActivities } from '../activities';
import { routeTableOf, type RouteTable } from '../events/routes';
import { DomainDefinitionError, type Domain, type DomainActivities } from './define-domain';

/**
 * What the worker and the bridge build from a list of registered domains. The engine never
 * names a domain: the processes pass theirs (src/domains/index.ts, or a team's own list).
 */

/** Two domains under one name would share claims and CLI commands: refused. */
export function checkDomains(domains: readonly Domain[]): void {
  const names = domains.map((d) => d.name);
  const repeated = names.filter((n, i) => names.indexOf(n) !== i);
  if (repeated.length) throw new DomainDefinitionError(`domain ${repeated[0]} registered twice`);
}

/** Every registered domain's routes as one table (an event type routed twice is refused). */
export function routesOfDomains(domains: readonly Domain[]): RouteTable {
  checkDomains(domains);
  return routeTableOf(domains.flatMap((d) => d.routes));
}

/**
 * The engine's activities and every domain's, as one registration. A name given twice (two
 * domains, or a domain and the engine) is refused: the worker would run only one of them.
 */
export function activitiesOfDomains(
  domains: readonly Domain[],
  deps: ActivityDeps,
): DomainActivities {
  checkDomains(domains);
  const all: DomainActivities = { ...createActivities(deps) };
  for (const domain of domains) {
    for (const [name, fn] of Object.entries(domain.activities(deps))) {
      if (name in all)
        throw new DomainDefinitionError(
          `domain ${domain.name}: activity ${name} is registered twice`,
        );
      all[name] = fn;
    }
  }
  return all;
}

/**
 * Every route's workflow is exported by its domain's workflows module, and no workflow type is
 * exported twice (the bundle would keep one). Loads each workflows module in this process
 * (workflow modules only define functions at load), so a mistake stops the worker at start
 * rather than failing the first event's workflow task.
 */
export function checkWorkflowExports(domains: readonly Domain[]): void {
  checkDomains(domains);
  const owner = new Map<string, string>();
  for (const domain of domains) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path only known at run time
    const exported = require(domain.workflowsPath) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exported)) {
      if (typeof value !== 'function') continue;
      const other = owner.get(name);
      if (other)
        throw new DomainDefinitionError(
          `workflow ${name} is exported by domains ${other} and ${domain.name}`,
        );
      owner.set(name, domain.name);
    }
    for (const route of domain.routes) {
      if (typeof exported[route.workflowType] !== 'function')
        throw new DomainDefinitionError(
          `domain ${domain.name}: route ${route.eventType} starts workflow ${route.workflowType}, which ${domain.workflowsPath} does not export`,
        );
    }
  }
}
