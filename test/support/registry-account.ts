// What the registry decoding tests share: an account event's route (data in Avro), its
// envelope headers, and the bridge's registry retry count.
import type { IHeaders } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { DEFAULT_ROUTES } from '../../src/domains';
import { defineRoute } from '../../src/events/define-route';
import { HEADER } from '../../src/events/envelope';
import { mergeRoutes } from '../../src/events/routes';
import type { RunningBridge } from '../../src/kafka-bridge/bridge';

/** The orders' routes and AccountChanged, whose data the tests write as Avro. */
export const ACCOUNT_ROUTES = mergeRoutes(DEFAULT_ROUTES, [
  defineRoute({
    eventType: 'AccountChanged',
    schema: z.object({
      accountId: z.string(),
      balanceMinor: z.number().int(),
      note: z.string().nullable().optional(),
    }),
    workflow: 'accountChanged',
  }),
]);

/** onceflow's envelope headers of version `version` of account `accountId`. */
export function accountHeaders(accountId: string, version: number): IHeaders {
  return {
    [HEADER.eventId]: randomUUID(),
    [HEADER.eventType]: 'AccountChanged',
    [HEADER.aggregateId]: accountId,
    [HEADER.aggregateVersion]: String(version),
  };
}

/** The bridge's retries of the registry for `fault` (any fault when none is named). */
export async function registryRetries(bridge: RunningBridge, fault?: string): Promise<number> {
  const metric = await bridge.metrics.transientRetries.get();
  return metric.values
    .filter((v) => v.labels.dependency === 'registry' && (!fault || v.labels.fault === fault))
    .reduce((n, v) => n + v.value, 0);
}
