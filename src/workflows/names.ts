// The names a workflow definition gives, and what each must be: one owner for the rules
// (keys, claims, the Step attribute carry them) and the check that stops a worker at start
// when a definition breaks one. Pure (workflow code and the worker's start-up check).

import { PROVIDER_NAME, PROVIDER_NAME_RULE } from '../util/provider-queue';

/** A domain's name: entity_claims.domain's CHECK, the ops CLI's group. */
export const DOMAIN_NAME = /^[a-z][a-z0-9-]{0,62}$/;
/** A key's kind, step, compensation or outcome: a short name a header and `Step` carry as is. */
export const KEY_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** A workflow definition that cannot work as written: names the domain and the name. */
export class WorkflowDefinitionError extends Error {
  override readonly name = 'WorkflowDefinitionError';
}

/**
 * Throws when `name` cannot be a `what` (an entity kind, a step, a compensation, an outcome):
 * it is part of every key (`<kind>:<entity>:<step>`), of the claim's settlement and of the
 * Step search attribute, so it must be a short lower-case name.
 */
export function checkKeyName(what: string, name: string, domain?: string): void {
  if (KEY_NAME.test(name)) return;
  const suggestion = name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 40);
  throw new WorkflowDefinitionError(
    `${domain ? `domain ${domain}: ` : ''}${what} name ${JSON.stringify(name)} cannot be part of a key or the Step attribute: use lower-case letters, digits and - (a letter first, at most 40)${suggestion ? `, e.g. ${JSON.stringify(suggestion)}` : ''}`,
  );
}

/** What every definition is checked for at start: its domain and each of its names. */
export interface DefinitionNames {
  domain: string;
  kind: string;
  steps: readonly string[];
  compensations: readonly string[];
  outcomes: readonly string[];
  /**
   * The providers its steps and compensations declare: each one's activity task queue is
   * polled by the worker (src/workflows/provider-queue.ts). Default: none.
   */
  providers?: readonly string[];
  /** The engine claims before the first step (its step is then `claim`). */
  engineClaims: boolean;
}

/**
 * Checks a definition's names (each legal, none given twice); throws a
 * WorkflowDefinitionError naming the domain and the name.
 */
export function checkDefinitionNames(names: DefinitionNames): void {
  const { domain } = names;
  if (!DOMAIN_NAME.test(domain))
    throw new WorkflowDefinitionError(
      `domain name ${JSON.stringify(domain)} must be lower-case letters, digits and - (a letter first, at most 63)`,
    );
  checkKeyName('entity kind', names.kind, domain);
  for (const step of names.steps) checkKeyName('step', step, domain);
  for (const comp of names.compensations) checkKeyName('compensation', comp, domain);
  for (const outcome of names.outcomes) checkKeyName('outcome', outcome, domain);
  const all = [...names.steps, ...names.compensations];
  const repeated = all.filter((n, i) => all.indexOf(n) !== i);
  if (repeated.length)
    throw new WorkflowDefinitionError(
      `domain ${domain}: steps and compensations repeat the name ${JSON.stringify(repeated[0])} (each needs its own key)`,
    );
  for (const provider of names.providers ?? [])
    if (!PROVIDER_NAME.test(provider))
      throw new WorkflowDefinitionError(
        `domain ${domain}: provider ${JSON.stringify(provider)} ${PROVIDER_NAME_RULE}`,
      );
  if (names.engineClaims && all.includes('claim'))
    throw new WorkflowDefinitionError(
      `domain ${domain}: "claim" is the engine's own step; name yours otherwise`,
    );
}

/** The key a workflow function carries its definition's names under (the worker reads it). */
export const DEFINITION_KEY = 'onceflowDefinition';

/** What a workflow function built by the engine says of itself, for the worker's check. */
export interface DefinitionMeta extends DefinitionNames {
  /** The workflow type: the export's name must be this. */
  workflowType: string;
  /** Event types its publishing steps publish (the domain must route each to a topic). */
  publishes: readonly string[];
}

/**
 * The names that get keys, in the order `status.keys` lists them: the steps top to bottom,
 * then their compensations in the order they undo (last step's first).
 */
export function keyNamesOf(names: Pick<DefinitionNames, 'steps' | 'compensations'>): string[] {
  return [...names.steps, ...[...names.compensations].reverse()];
}
