import { isAbsolute } from 'node:path';
import type pg from 'pg';
import type { ActivityDeps } from '../activities';
import type { Config } from '../config';
import { DOMAIN_NAME } from '../workflows/names';
import type { Route } from '../events/routes';

/** A domain's activities: plain async functions taking one input object. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each activity types its own input
export type DomainActivities = Record<string, (input: any) => Promise<unknown>>;

/** One breach of a domain's business invariant, for a human and for a count. */
export interface InvariantBreach {
  /** Which invariant, e.g. `one-net-charge`. */
  invariant: string;
  /** The entity it concerns. */
  entityId: string;
  detail: string;
}

/**
 * A domain's business invariants, stated once: the breaches among the entities whose IDs start
 * with `prefix` (a run's, or '' for all), read from the domain's own effects.
 */
export type InvariantCheck = (context: {
  pool: pg.Pool;
  prefix: string;
}) => Promise<InvariantBreach[]>;

/**
 * How the ops CLI (`npx onceflow <domain> …`) reaches a domain's runs. Every field has a
 * default that fits a saga built with defineSaga's defaults, so a new domain declares none.
 */
export interface DomainOps {
  /**
   * The workflow type whose runs the CLI lists, shows and signals (one per entity).
   * Default: the workflow of the domain's first route.
   * @example workflow: 'giftCard'
   */
  workflow?: string;
  /**
   * The saga's cancellation signal (its definition's `channels.cancel`). Default: `cancel`.
   * @example cancelSignal: 'cancelOrder'
   */
  cancelSignal?: string;
  /**
   * The saga's status query (its definition's `channels.status`). Default: `status`.
   * @example statusQuery: 'orderStatus'
   */
  statusQuery?: string;
}

/** What a team declares for a domain: its events, its workflows, its activities. */
export interface DomainSpec {
  /**
   * The domain's name, plural and lower-case: its claims are kept under it, the ops CLI calls
   * it so (`npx onceflow orders list`).
   * @example name: 'giftcards'
   */
  name: string;
  /**
   * The entity it acts on once, as a person names it.
   * @example entity: 'gift card'
   */
  entity: string;
  /**
   * Its routes: which event types start which of its workflows (defineRoute).
   * @example routes: [giftCardBought]
   */
  routes: readonly Route[];
  /**
   * The module exporting its workflows (workflow code only: @temporalio/workflow,
   * onceflow/workflow, types); the worker bundles it with every other registered domain's.
   * @example workflowsPath: require.resolve('./workflows')
   */
  workflowsPath: string;
  /**
   * Its activities, built from the engine's dependencies (the pool on DATABASE_URL, the
   * provider client's options, the settings). Names must not clash across domains.
   * @example activities: ({ pool }) => ({ issueCard: async (input) => issue(pool, input) })
   */
  activities(deps: ActivityDeps): DomainActivities;
  /**
   * Its business invariants (one owner for them: demo, chaos, reconcile and the benches
   * judge through this). Default: none stated.
   * @example invariants: async ({ pool, prefix }) => findDoubleCharges(pool, prefix)
   */
  invariants?: InvariantCheck;
  /**
   * What the ops CLI needs to know when the domain's saga does not use the defaults (its
   * first route's workflow, the `cancel` signal, the `status` query). Default: the defaults.
   * @example ops: { workflow: 'giftCard', cancelSignal: 'cancelCard', statusQuery: 'cardStatus' }
   */
  ops?: DomainOps;
  /**
   * The topic of each event type its workflows publish (a publishing step), or how the
   * worker's settings name it. Default: it publishes nothing.
   * @example publishes: { GiftCardIssued: 'gift-card-events' }
   */
  publishes?: Readonly<Record<string, string | ((config: Config) => string)>>;
}

/** A registered domain (defineDomain's result). */
export type Domain = Readonly<DomainSpec>;

/** A domain that cannot work as declared; names the domain and what is wrong. */
export class DomainDefinitionError extends Error {
  override readonly name = 'DomainDefinitionError';
}

/**
 * A domain: the unit a team registers (one line in its registry). Checked at once, so a
 * mistake fails at start-up, not at the first event.
 *
 * @example
 * export const giftCards = defineDomain({
 *   name: 'giftcards',
 *   entity: 'gift card',
 *   routes: [giftCardBought],
 *   workflowsPath: require.resolve('./workflows'),
 *   activities: ({ pool }) => createGiftCardActivities(pool),
 * });
 */
export function defineDomain(spec: DomainSpec): Domain {
  const problems: string[] = [];
  if (!DOMAIN_NAME.test(spec.name)) problems.push('name must be lower-case letters, digits and -');
  if (spec.routes.length === 0) problems.push('routes: at least one');
  const types = spec.routes.map((r) => r.eventType);
  const repeated = types.filter((t, i) => types.indexOf(t) !== i);
  if (repeated.length) problems.push(`routes: ${repeated.join(', ')} routed twice`);
  const opsWorkflow = spec.ops?.workflow;
  if (opsWorkflow !== undefined && !spec.routes.some((r) => r.workflowType === opsWorkflow))
    problems.push(`ops.workflow ${opsWorkflow} is not the workflow of any of its routes`);
  if (!isAbsolute(spec.workflowsPath))
    problems.push('workflowsPath must be absolute (require.resolve of the workflows module)');
  if (problems.length)
    throw new DomainDefinitionError(`domain ${spec.name}: ${problems.join('; ')}`);
  return Object.freeze({ ...spec, routes: Object.freeze([...spec.routes]) });
}
