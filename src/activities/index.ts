import type pg from 'pg';
import { DEFAULTS } from '../config';
import { createEmailActivities } from './email';
import { createInventoryActivities } from './inventory';
import { createOrderLookupActivities } from './order-lookup';
import { createPaymentActivities } from './payments';
import type { ProviderClientOptions } from './provider-http';
import { createSystemActivities } from './system';

/** What activities need from the outside world; injected so tests can pass their own. */
export interface ActivityDeps {
  /** The service's own Postgres (inventory, ledger); its search_path picks the schema. */
  pool: pg.Pool;
  /**
   * The payment and mail providers. Default: PROVIDERS_URL's default (http://127.0.0.1:4010),
   * 5 s per request; createWorker passes the configured URL.
   */
  providers?: ProviderClientOptions;
}

/**
 * All activities, built from their dependencies. One file per external system; workflows
 * derive their proxy types from `ReturnType<typeof createActivities>`.
 */
export function createActivities(deps: ActivityDeps) {
  const providers = deps.providers ?? { url: DEFAULTS.PROVIDERS_URL };
  return {
    ...createSystemActivities(deps),
    ...createInventoryActivities(deps),
    ...createOrderLookupActivities(deps),
    ...createPaymentActivities(providers),
    ...createEmailActivities(providers),
  };
}

export type Activities = ReturnType<typeof createActivities>;
