import { z } from 'zod';
import { defineDomain, defineRoute, type Domain } from '../../../../src';
import { createDeployActivities } from './activities';

/** The deploy test domain as version `v` of its code registers it (one line a version). */
export function deploysDomain(v: 'v1' | 'v2'): Domain {
  return defineDomain({
    name: 'deploys',
    entity: 'renewal',
    routes: [
      defineRoute({
        eventType: 'RenewalDue',
        schema: z.object({ renewalId: z.string() }),
        workflow: 'renewal',
      }),
    ],
    workflowsPath: require.resolve(`./${v}/workflows`),
    activities: createDeployActivities,
  });
}
