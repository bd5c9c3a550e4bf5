import type pg from 'pg';
import type { Config } from '../config';
import { createClaimActivities } from './claims';
import type { EventProducer } from './kafka';
import type { ProviderClientOptions } from './provider-http';
import { createSystemActivities } from './system';

/** What activities need from the outside world; injected so tests can pass their own. */
export interface ActivityDeps {
  /** The service's own Postgres; its search_path picks the schema (DATABASE_SCHEMA). */
  pool: pg.Pool;
  /**
   * Foreign providers over HTTP (postToProvider): base URL, per-request timeout, the transient
   * window handed to the workflow. Default: PROVIDERS_URL's default (http://127.0.0.1:4010),
   * 5 s per request; createWorker passes the configured ones.
   */
  providers?: ProviderClientOptions;
  /** The worker's settings, for a domain's activities that read their own. Set by createWorker. */
  config?: Config;
  /**
   * The producer of publishing steps. Default: createWorker's own, on the configured Kafka,
   * connected at the first publish and closed when the worker stops.
   */
  producer?: EventProducer;
}

/**
 * The engine's own activities: the claim step and settlement of domains that do not claim in
 * their own transaction, and the smoke check. A domain's activities come from its
 * `activities(deps)` (defineDomain); workflows derive their proxy types with `typeof`.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
    ...createClaimActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
