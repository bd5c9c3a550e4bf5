import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The Keyword search attributes the Web UI and the ops CLI query on, the same five for every
 * domain's workflows (SQL visibility allows ten custom Keywords per namespace, so one set per
 * domain would not scale); registered by the dev stack and docker-compose, exactly these.
 * Shared by the bridge (set at start) and the workflows (kept current), so the names are
 * written once.
 *
 * - `EntityId`: the business entity the run acts on (an order ID, a payout ID); which domain
 *   it belongs to is the run's `WorkflowType`.
 * - `Step`: where the run is: `waiting`, `needs_attention`, and how it ended (`cancelled`,
 *   `duplicate`, `<entity>_conflict`, a domain's outcomes such as `rejected`); a run that
 *   completed closes with none (src/temporal/run-step.ts reads it as `completed`).
 * - `CustomerId`: the party the entity belongs to, when its route names one (a keyed hash by
 *   default: src/temporal/customer-keyword.ts).
 * - `EventId`, `EventType`: the event that started the run.
 *
 * Runs recorded before this set replaced `OrderId` and `OrderStep` replay unchanged: the SDK
 * compares an upsert's command, not its attribute names (the replay fixtures prove it), and a
 * run resumed by this version upserts `Step` from its next step change on.
 */
export const SEARCH_ATTRIBUTE = {
  entityId: defineSearchAttributeKey('EntityId', SearchAttributeType.KEYWORD),
  step: defineSearchAttributeKey('Step', SearchAttributeType.KEYWORD),
  customerId: defineSearchAttributeKey('CustomerId', SearchAttributeType.KEYWORD),
  eventId: defineSearchAttributeKey('EventId', SearchAttributeType.KEYWORD),
  eventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
} as const;

/**
 * The names these attributes had in histories recorded before the generic set (orders only).
 * Not registered any more; readers of an order run's history (which may predate the rename,
 * or hold both: a run resumed by a newer worker) read both names.
 */
export const FORMER_NAME = {
  entityId: 'OrderId',
  step: 'OrderStep',
} as const;

/** Temporal's own search attributes that onceflow's queries use. */
export const SYSTEM_ATTRIBUTE = {
  workflowType: 'WorkflowType',
  workflowId: 'WorkflowId',
  executionStatus: 'ExecutionStatus',
  startTime: 'StartTime',
  closeTime: 'CloseTime',
  /** `<deployment>:<build ID>` of a versioned run (Temporal sets it; docs/deploying.md). */
  workerDeploymentVersion: 'TemporalWorkerDeploymentVersion',
} as const;

/** How visibility spells a run's worker deployment version. */
export function deploymentVersionOf(deployment: string, buildId: string): string {
  return `${deployment}:${buildId}`;
}

/** An attribute in a query: one of ours (SEARCH_ATTRIBUTE) or Temporal's (SYSTEM_ATTRIBUTE). */
export type QueryAttribute = { readonly name: string } | string;

/** A value a visibility query cannot carry as it is; names the value. */
export class VisibilityValueError extends Error {
  override readonly name = 'VisibilityValueError';
  constructor(readonly value: string) {
    super(`a visibility query cannot hold a value with both quote kinds or a backslash: ${value}`);
  }
}

/**
 * Quotes a value for a visibility query: single quotes, or double quotes when the value holds
 * a single quote. Visibility stores do not agree on escapes (the dev server matches nothing
 * once a value is escaped, and a backslash swallows the closing quote and the rest of the
 * query), so a value holding both quote kinds or a backslash is refused rather than mangled.
 */
export function quoteVisibilityValue(value: string): string {
  if (value.includes('\\')) throw new VisibilityValueError(value);
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('"')) return `"${value}"`;
  throw new VisibilityValueError(value);
}

function nameOf(attribute: QueryAttribute): string {
  return typeof attribute === 'string' ? attribute : attribute.name;
}

/**
 * Visibility query terms. Every query onceflow sends (ops CLI, reconcile, chaos, the parked
 * gauge) is built here, so attribute names and quoting are written once; the strings are the
 * ones the Web UI's search box takes.
 */
export const visibility = {
  equals: (attribute: QueryAttribute, value: string): string =>
    `${nameOf(attribute)} = ${quoteVisibilityValue(value)}`,
  startsWith: (attribute: QueryAttribute, prefix: string): string =>
    `${nameOf(attribute)} STARTS_WITH ${quoteVisibilityValue(prefix)}`,
  oneOf: (attribute: QueryAttribute, values: readonly string[]): string =>
    `${nameOf(attribute)} IN (${values.map(quoteVisibilityValue).join(', ')})`,
  isUnset: (attribute: QueryAttribute): string => `${nameOf(attribute)} IS NULL`,
  before: (attribute: QueryAttribute, at: Date): string =>
    `${nameOf(attribute)} < ${quoteVisibilityValue(at.toISOString())}`,
  atOrAfter: (attribute: QueryAttribute, at: Date): string =>
    `${nameOf(attribute)} >= ${quoteVisibilityValue(at.toISOString())}`,
  /** Terms joined by AND; undefined and false terms are left out. */
  allOf: (...terms: ReadonlyArray<string | undefined | false>): string =>
    terms.filter((t): t is string => typeof t === 'string' && t !== '').join(' AND '),
  /** Terms joined by OR, in parentheses. */
  anyOf: (...terms: readonly string[]): string => `(${terms.join(' OR ')})`,
};
