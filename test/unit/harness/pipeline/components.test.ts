import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:net';
import { pickPipelineEndpoints } from '../../../../harness/pipeline/components';

const portOf = (url: string) => Number(new URL(url).port);

/** Listens on 127.0.0.1:port; resolves undefined when the port is taken already. */
function hold(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '127.0.0.1' }, () => resolve(server));
  });
}

describe('pipeline endpoints', () => {
  it('gives a run that restarts its processes OS-chosen ports, never the well-known ones', async () => {
    for (let i = 0; i < 5; i++) {
      const { providersUrl, metricsUrl, env } = await pickPipelineEndpoints(
        { KAFKA_BROKERS: 'k:1' },
        { restarted: true },
      );
      const ports = [portOf(providersUrl), portOf(metricsUrl)];
      for (const p of ports) assert.ok(p !== 4010 && p !== 9464, `${p} is a well-known port`);
      assert.notEqual(ports[0], ports[1]);
      assert.equal(env.PROVIDERS_URL, providersUrl);
      assert.equal(env.BRIDGE_METRICS_PORT, String(ports[1]));
      assert.equal(env.KAFKA_BROKERS, 'k:1');
    }
  });

  it('otherwise hands out 4010 and 9464 only when they are free', async () => {
    // Held by this test if free, so the answer does not depend on the machine's other users.
    const held = await Promise.all([hold(4010), hold(9464)]);
    try {
      const { providersUrl, metricsUrl } = await pickPipelineEndpoints({});
      // Held here (or by someone else): not handed out.
      assert.notEqual(portOf(providersUrl), 4010);
      assert.notEqual(portOf(metricsUrl), 9464);
    } finally {
      await Promise.all(held.map((s) => new Promise((r) => (s ? s.close(r) : r(undefined)))));
    }
  });
});
