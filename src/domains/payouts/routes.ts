// The payout domain's routes: which event starts which workflow, and under which identity.
import { defineRoute } from '../../index';
import {
  PAYOUT_EVENT_TYPES,
  payoutCancelledSchema,
  payoutRequestedSchema,
  type PayoutCancelledData,
  type PayoutRequestedData,
} from './payout-events';

/** PayoutRequested → `payout`, one run per payout version (`payoutId@version`). */
export const payoutRequestedRoute = defineRoute<PayoutRequestedData>({
  eventType: PAYOUT_EVENT_TYPES.payoutRequested,
  schema: payoutRequestedSchema,
  workflow: 'payout',
  entityId: (d) => d.payoutId,
  summary: (d) => `Payout ${d.payoutId} · ${(d.amountMinor / 100).toFixed(2)} ${d.currency}`,
  check: (e, d) => (d.payoutId === e.aggregateId ? undefined : 'payoutId must be the aggregate ID'),
});

/** PayoutCancelled → `payoutCancellation`, one run per event. */
export const payoutCancelledRoute = defineRoute<PayoutCancelledData>({
  eventType: PAYOUT_EVENT_TYPES.payoutCancelled,
  schema: payoutCancelledSchema,
  identity: 'event-id',
  workflow: 'payoutCancellation',
  entityId: (d) => d.payoutId,
});
