import type { ActivityDeps } from '../activities';
import { createActivities } from '../activities';
import { createEventProducer, createPublishActivities } from '../activities/kafka';
import type { Config } from '../config';
import { routeTableOf, type RouteTable } from '../events/routes';
import { DEFINITION_KEY, type DefinitionMeta } from '../workflows/names';
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

/** The topic a domain publishes an event type to, under the worker's settings. */
export function publishTopicOf(
  domains: readonly Domain[],
  config: Config | undefined,
): (domain: string, eventType: string) => string | undefined {
  return (name, eventType) => {
    const topic = domains.find((d) => d.name === name)?.publishes?.[eventType];
    if (typeof topic !== 'function') return topic;
    if (!config)
      throw new DomainDefinitionError(`domain ${name}: ${eventType}'s topic needs the settings`);
    return topic(config);
  };
}

/**
 * The engine's activities and every domain's, as one registration. A name given twice (two
 * domains, or a domain and the engine) is refused: the worker would run only one of them.
 * Publishing steps go through `deps.producer` (one is made on the configured Kafka if absent).
 */
export function activitiesOfDomains(
  domains: readonly Domain[],
  deps: ActivityDeps,
): DomainActivities {
  checkDomains(domains);
  const producer =
    deps.producer ?? (deps.config ? createEventProducer(deps.config.kafka) : undefined);
  const all: DomainActivities = {
    ...createActivities(deps),
    ...(producer
      ? createPublishActivities({
          producer,
          topicOf: publishTopicOf(domains, deps.config),
          transientRetryWindowMs:
            deps.providers?.transientRetryWindowMs ??
            deps.config?.orders.transientRetryWindowMs ??
            60 * 60_000,
          transientRetryIntervalMs:
            deps.providers?.transientRetryIntervalMs ??
            deps.config?.orders.transientRetryIntervalMs,
        })
      : {}),
  };
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

/** A workflow export's definition names, when the engine built it (defineWorkflow, defineSaga). */
function definitionOf(value: unknown): DefinitionMeta | undefined {
  return typeof value === 'function'
    ? ((value as unknown as Record<string, unknown>)[DEFINITION_KEY] as DefinitionMeta | undefined)
    : undefined;
}

/**
 * Every route's workflow is exported by its domain's workflows module, no workflow type is
 * exported twice (the bundle would keep one), each engine-built workflow belongs to the domain
 * that exports it (its claims are kept under that name), and the domain names a topic for every
 * event it publishes. Loads each workflows module in this process (workflow modules only
 * define functions at load, and check their names: a bad one throws here), so a mistake stops
 * the worker at start rather than failing the first event's workflow task.
 */
export function checkWorkflowExports(domains: readonly Domain[]): void {
  checkDomains(domains);
  const owner = new Map<string, string>();
  for (const domain of domains) {
    let exported: Record<string, unknown>;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path only known at run time
      exported = require(domain.workflowsPath) as Record<string, unknown>;
    } catch (err) {
      throw new DomainDefinitionError(
        `domain ${domain.name}: its workflows module ${domain.workflowsPath} does not load: ${(err as Error).message}`,
        { cause: err },
      );
    }
    for (const [name, value] of Object.entries(exported)) {
      if (typeof value !== 'function') continue;
      const other = owner.get(name);
      if (other)
        throw new DomainDefinitionError(
          `workflow ${name} is exported by domains ${other} and ${domain.name}`,
        );
      owner.set(name, domain.name);
      const meta = definitionOf(value);
      if (!meta) continue;
      if (meta.workflowType !== name)
        throw new DomainDefinitionError(
          `domain ${domain.name}: workflow ${meta.workflowType} is exported as ${name}: Temporal knows a workflow by its export, so make the two names one`,
        );
      if (meta.domain !== domain.name)
        throw new DomainDefinitionError(
          `domain ${domain.name}: workflow ${name} is defined for domain ${meta.domain} (its claims would be kept under that name): make the two names one`,
        );
      for (const eventType of meta.publishes)
        if (domain.publishes?.[eventType] === undefined)
          throw new DomainDefinitionError(
            `domain ${domain.name}: workflow ${name} publishes ${eventType}, for which the domain names no topic (defineDomain publishes)`,
          );
    }
    for (const route of domain.routes) {
      if (typeof exported[route.workflowType] !== 'function')
        throw new DomainDefinitionError(
          `domain ${domain.name}: route ${route.eventType} starts workflow ${route.workflowType}, which ${domain.workflowsPath} does not export`,
        );
    }
  }
}

/**
 * The providers the domains' engine-built workflows declare (a step's, a compensation's or a
 * publication's `provider`), sorted: the activity task queues a worker must poll. Loads the
 * workflows modules as checkWorkflowExports does (cached by require).
 */
export function declaredProviders(domains: readonly Domain[]): string[] {
  const providers = new Set<string>();
  for (const domain of domains) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path only known at run time
    const exported = require(domain.workflowsPath) as Record<string, unknown>;
    for (const value of Object.values(exported))
      for (const provider of definitionOf(value)?.providers ?? []) providers.add(provider);
  }
  return [...providers].sort();
}
