import { DEFAULTS } from '../../../config';
import type { ActivityDeps } from '../../../activities';
import { createEmailActivities } from './email';
import { createInventoryActivities } from './inventory';
import { createOrderLookupActivities } from './order-lookup';
import { createPaymentActivities } from './payments';

/**
 * The order domain's activities, one file per external system: inventory and the order claim
 * (our own Postgres), the owner lookup, payments and email (the providers over HTTP).
 */
export function createOrderActivities(deps: ActivityDeps) {
  const providers = deps.providers ?? { url: DEFAULTS.PROVIDERS_URL };
  return {
    ...createInventoryActivities(deps),
    ...createOrderLookupActivities(deps),
    ...createPaymentActivities(providers),
    ...createEmailActivities(providers),
  };
}

export type OrderActivities = ReturnType<typeof createOrderActivities>;
