/**
 * The order workload as a Restate virtual object keyed by order ID (the Kafka key): the
 * subscription delivers each record to `Orders/placed`, Restate runs one invocation per key at
 * a time, and the three effects are journaled `ctx.run` steps. A `done` flag in the object's
 * state absorbs duplicate deliveries and fresh-ID resends of a finished order.
 *
 * Started by harness/bench/peers (node --import ../with-resolvers.ts --import tsx); not part of the
 * product's typecheck (harness/bench/peers/tsconfig.json checks it once the peers are installed).
 */
import * as restate from '@restatedev/restate-sdk';
import { createPeerApp, orderOfValue } from '../order-steps';

const { env, steps } = createPeerApp('restate');

const orders = restate.object({
  name: 'Orders',
  handlers: {
    placed: async (ctx: restate.ObjectContext, event: unknown): Promise<string> => {
      if (await ctx.get<boolean>('done')) return 'duplicate';
      const order = orderOfValue(event);
      const reserved = await ctx.run('reserve', () => steps.reserve(order));
      if (reserved.verdict !== 'owner') return reserved.verdict;
      await ctx.run('charge', () => steps.charge(order));
      await ctx.run('email', () => steps.email(order));
      ctx.set('done', true);
      return 'completed';
    },
  },
});

restate
  .serve({ services: [orders], port: env.port })
  .then((port) => process.stdout.write(`restate service listening on ${port}\n`))
  .catch((err: unknown) => {
    process.stderr.write(`restate service failed: ${String(err)}\n`);
    process.exit(1);
  });
