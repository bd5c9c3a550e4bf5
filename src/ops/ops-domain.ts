/**
 * What the ops CLI knows of a registered domain: its group (`npx onceflow payouts …`), the
 * entity's word, the workflow type it lists and signals, the saga's cancel signal and status
 * query. Read from the domain registry (defineDomain's `name`, `entity`, routes and `ops`),
 * so a domain reaches the CLI by being registered, with no command of its own.
 */
import { resolve } from 'node:path';
import type { Domain } from '../engine/define-domain';
import { checkDomains } from '../engine/registry';
import { cancelSignal, statusQuery } from '../workflows/saga-status';
import { UsageError } from './output';

/** The CLI's view of one domain. */
export interface OpsDomain {
  /** The CLI group and the claims' domain: `payouts`. */
  name: string;
  /** The entity in a sentence: `payout`. */
  entity: string;
  /** The workflow type whose runs are listed, shown and signalled. */
  workflowType: string;
  cancelSignal: string;
  statusQuery: string;
}

/** Groups of the CLI that are not domains; a domain of the same name would be unreachable. */
export const OTHER_GROUPS = ['dlq', 'ledger', 'builds', 'reconcile', 'help'] as const;

/** The CLI's view of a registered domain (defaults: first route's workflow, `cancel`, `status`). */
export function opsDomainOf(domain: Domain): OpsDomain {
  return {
    name: domain.name,
    entity: domain.entity,
    workflowType: domain.ops?.workflow ?? domain.routes[0]!.workflowType,
    cancelSignal: domain.ops?.cancelSignal ?? cancelSignal.name,
    statusQuery: domain.ops?.statusQuery ?? statusQuery.name,
  };
}

/** Every registered domain as the CLI sees it; a name the CLI already uses is refused. */
export function opsDomainsOf(domains: readonly Domain[]): OpsDomain[] {
  checkDomains(domains);
  const clash = domains.find((d) => (OTHER_GROUPS as readonly string[]).includes(d.name));
  if (clash)
    throw new UsageError(`domain ${clash.name}: the name is an ops CLI command; rename the domain`);
  return domains.map(opsDomainOf);
}

/** The domain a command names, or a UsageError listing the known ones. */
export function findOpsDomain(domains: readonly OpsDomain[], name: string): OpsDomain {
  const found = domains.find((d) => d.name === name);
  if (found) return found;
  const known = domains.map((d) => d.name).join(', ') || 'none registered';
  throw new UsageError(
    `unknown domain or command: ${name} (registered domains: ${known}; other commands: dlq, ledger, reconcile; a domain of your own: --domains-module <file>)`,
  );
}

/**
 * The domains a module exports (`--domains-module`): its `DOMAINS`, `domains` or default
 * export, an array of defineDomain results. Resolved from the current directory; a `.ts`
 * module loads as the CLI runs on tsx.
 */
export function loadDomainsModule(path: string, cwd = process.cwd()): readonly Domain[] {
  const file = resolve(cwd, path);
  let exported: Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path only known at run time
    exported = require(file) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(
      `--domains-module ${path}: cannot load ${file}: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  const list = exported.DOMAINS ?? exported.domains ?? exported.default;
  const isDomain = (d: unknown) =>
    typeof d === 'object' &&
    d !== null &&
    typeof (d as Domain).name === 'string' &&
    Array.isArray((d as Domain).routes);
  if (!Array.isArray(list) || list.length === 0 || !list.every(isDomain))
    throw new UsageError(
      `--domains-module ${path}: export DOMAINS (or domains, or a default) as a non-empty array of defineDomain results`,
    );
  return list as Domain[];
}
