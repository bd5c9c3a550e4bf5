/**
 * The floor's activities: a no-op, so only Temporal's own cost is measured; and, for the floor
 * ladder, the extras an order's run adds, made with the product's own code: the claim and its
 * settlement on the engine's claim store, the publish on the engine's publishing activity.
 */
import type pg from 'pg';
import type { Config } from '../../src/config';
import { claimEntityOnce, settleClaim } from '../../src/db/entity-claim-store';
import { createPublishActivities, type EventProducer } from '../../src/activities/kafka';

/** The claims of the ladder's runs are kept under this domain. */
const FLOOR_DOMAIN = 'floor';

export interface FloorDeps {
  /** Onceflow's Postgres, on a schema of the bench's (entity_claims). */
  pool?: pg.Pool;
  /** The worker's publisher, and the topic the ladder publishes to. */
  publish?: { producer: EventProducer; topic: string; config: Config };
}

type Claimant = { workflowId: string; runId: string };

export function createFloorActivities(deps: FloorDeps = {}) {
  const pool = () => {
    if (!deps.pool) throw new Error('a claiming floor workflow needs the ladder pool');
    return deps.pool;
  };
  const publisher = deps.publish
    ? createPublishActivities({
        producer: deps.publish.producer,
        topicOf: () => deps.publish!.topic,
        transientRetryWindowMs: deps.publish.config.orders.transientRetryWindowMs,
      })
    : undefined;
  return {
    async noop(): Promise<void> {},
    async claim(c: Claimant): Promise<void> {
      await claimEntityOnce(pool(), {
        domain: FLOOR_DOMAIN,
        entityId: c.workflowId,
        ...c,
        fingerprint: 'floor',
      });
    },
    async settle(c: Claimant): Promise<void> {
      await settleClaim(pool(), {
        domain: FLOOR_DOMAIN,
        entityId: c.workflowId,
        ...c,
        fingerprint: 'floor',
        settled: 'completed',
      });
    },
    async publish(entityId: string): Promise<void> {
      if (!publisher) throw new Error('a publishing floor workflow needs the ladder producer');
      await publisher.publishEvent({
        domain: FLOOR_DOMAIN,
        eventType: 'FloorDone',
        key: `floor:${entityId}:announce`,
        entityId,
        data: { entityId },
      });
    },
  };
}

export type FloorActivities = ReturnType<typeof createFloorActivities>;
