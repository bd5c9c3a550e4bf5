import { strict as assert } from 'node:assert';
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { defineDomain, type Domain } from '../../../src/engine/define-domain';
import { defineRoute } from '../../../src/events/define-route';
import { createPool } from '../../../src/db/pool';
import { createWorker } from '../../../src/worker/create-worker';
import { testConfig, uniqueName } from '../../support/services';

/** A domain whose one route starts `workflow` from the bad module `file`. */
function badDomain(name: string, file: string, workflow: string): Domain {
  return defineDomain({
    name,
    entity: 'thing',
    routes: [
      defineRoute({
        eventType: `${workflow}Event`,
        schema: z.object({ id: z.string() }),
        workflow,
      }),
    ],
    workflowsPath: require.resolve(`../../support/domains/bad/${file}`),
    activities: () => ({}),
  });
}

/**
 * A name the key or the claim cannot carry, a definition of another domain, two calls under
 * one name, a publication without a topic: the worker refuses to start, naming the domain and
 * the name, instead of failing every run's first workflow task forever.
 */
describe('names are checked when the worker starts (real Temporal connection)', () => {
  let connection: NativeConnection;
  const config = testConfig();
  const pool = createPool(config.database);
  before(async () => {
    connection = await NativeConnection.connect({ address: config.temporal.address });
  });
  after(async () => {
    await connection.close();
    await pool.end();
  });
  const start = (domain: Domain) =>
    createWorker({
      domains: [domain],
      connection,
      config,
      deps: { pool },
      taskQueue: uniqueName('bad-tq'),
      workflowBundle: { code: 'module.exports = {}' },
    });

  it('a step named sendEmail stops it, naming the domain, the step and a name that works', async () => {
    await assert.rejects(
      start(badDomain('bad-steps', 'step-name', 'badStepName')),
      /domain bad-steps: step name "sendEmail" cannot be part of a key.*e\.g\. "send-email"/,
    );
  });

  it('a workflow defined for another domain than the one registering it stops it', async () => {
    await assert.rejects(
      start(badDomain('giftcards', 'other-domain', 'otherDomain')),
      /domain giftcards: workflow otherDomain is defined for domain giftcard/,
    );
  });

  it('a compensation under a step name stops it (one key for two calls)', async () => {
    await assert.rejects(
      start(badDomain('repeats', 'repeated-step', 'repeatedStep')),
      /domain repeats: .*repeat the name "charge"/,
    );
  });

  it('an event published without a topic of its domain stops it', async () => {
    await assert.rejects(
      start(badDomain('announcers', 'unrouted-publish', 'unroutedPublish')),
      /domain announcers: workflow unroutedPublish publishes ThingHappened, for which the domain names no topic/,
    );
  });
});
