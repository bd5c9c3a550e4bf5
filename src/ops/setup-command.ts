import type { Config } from '../config';
import type { Domain } from '../engine/define-domain';
import { prepareServices, topicsOfDomains } from '../setup/prepare-services';
import { parseArgsOrUsage } from '../util/usage-error';
import type { CommandResult } from './output';

/**
 * `onceflow [--domains-module FILE] setup`: what a team runs once before its worker and bridge
 * (docs/first-domain.md), and after adding a route's topic: the migrations on DATABASE_SCHEMA,
 * and every topic its domains read (KAFKA_TOPICS and the routes' own) or publish to, each with
 * its DLQ topic (the source's partitions, the DLQ's retention and size limits,
 * BRIDGE_DLQ_REPLICATION_FACTOR). Idempotent: what exists is left as it is (a DLQ topic below
 * its limits is raised).
 */
export async function runSetup(
  config: Config,
  domains: readonly Domain[],
  argv: string[],
): Promise<CommandResult> {
  parseArgsOrUsage({ args: argv, options: {}, strict: true });
  const topics = topicsOfDomains(config, domains);
  const result = await prepareServices(config, domains);
  return {
    json: { schema: config.database.schema, topics, ...result },
    human: [
      `migrations applied on ${config.database.schema}: ${result.migrationsApplied.join(', ') || 'none pending'}`,
      `topics (each with its .dlq): ${topics.join(', ')}`,
      `topics created: ${result.topicsCreated.join(', ') || 'none missing'}`,
    ].join('\n'),
  };
}
