import { strict as assert } from 'node:assert';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { singleBrokerLayout } from '../../../../harness/stack/kafka-layout';
import { waitForKafka } from '../../../../harness/stack/kafka';
import { probeKafka, registeredBrokers } from '../../../../harness/stack/kafka-probe';

/** A Metadata v4 answer: correlation id, throttle time, brokers, cluster id, controller, no topics. */
function metadataAnswer(
  brokers: { id: number; host: string; port: number; rack?: string }[],
  clusterId = 'cluster-x',
) {
  const parts: Buffer[] = [];
  const int32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    parts.push(b);
  };
  const string = (s: string | undefined) => {
    const b = Buffer.alloc(2);
    b.writeInt16BE(s === undefined ? -1 : Buffer.byteLength(s));
    parts.push(b);
    if (s !== undefined) parts.push(Buffer.from(s));
  };
  int32(1); // correlation_id
  int32(0); // throttle_time_ms
  int32(brokers.length);
  for (const b of brokers) {
    int32(b.id);
    string(b.host);
    int32(b.port);
    string(b.rack);
  }
  string(clusterId);
  int32(brokers[0]?.id ?? -1);
  int32(0); // topics
  const body = Buffer.concat(parts);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

describe('registeredBrokers (Metadata v4 for no topics)', () => {
  let server: Server;
  let requests: Buffer[];

  async function serve(answer: Buffer, split = false): Promise<number> {
    requests = [];
    server = createServer((socket) =>
      socket.once('data', (request) => {
        requests.push(request);
        // Split in two writes: the reader must wait for the whole answer.
        if (split) {
          socket.write(answer.subarray(0, 7));
          setTimeout(() => socket.write(answer.subarray(7)), 20);
        } else socket.write(answer);
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
  }

  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it('reads the broker ids, with and without a rack, from an answer that arrives in pieces', async () => {
    const port = await serve(
      metadataAnswer([
        { id: 1, host: '127.0.0.1', port: 9092 },
        { id: 3, host: 'broker-three.internal', port: 9095, rack: 'rack-b' },
        { id: 2, host: '127.0.0.1', port: 9094 },
      ]),
      true,
    );
    assert.deepEqual(await registeredBrokers('127.0.0.1', port), [1, 3, 2]);
  });

  it('asks for Metadata v4 with an empty (not null) topic list and no auto-creation', async () => {
    const port = await serve(metadataAnswer([]));
    assert.deepEqual(await registeredBrokers('127.0.0.1', port), []);
    const r = requests[0]!;
    assert.equal(r.readInt32BE(0), r.length - 4, 'size prefix');
    assert.equal(r.readInt16BE(4), 3, 'api key Metadata');
    assert.equal(r.readInt16BE(6), 4, 'api version 4');
    const clientLength = r.readInt16BE(12);
    assert.equal(r.readInt32BE(14 + clientLength), 0, 'topics: empty array, not -1 (all)');
    assert.equal(r.readInt8(18 + clientLength), 0, 'allow_auto_topic_creation false');
  });

  it('fails by name when nothing answers', async () => {
    const port = await serve(Buffer.alloc(0));
    await assert.rejects(registeredBrokers('127.0.0.1', port, 300), /no Metadata answer/);
  });

  it("reads the answering broker's cluster ID", async () => {
    const port = await serve(metadataAnswer([{ id: 1, host: '127.0.0.1', port: 9092 }], 'ours'));
    assert.deepEqual(await probeKafka('127.0.0.1', port), { clusterId: 'ours', brokerIds: [1] });
  });

  it("waitForKafka does not take another cluster's broker 1 on our port for ours", async () => {
    // Another stack's single broker (node 1 too) on the port our killed broker left free.
    const port = await serve(metadataAnswer([{ id: 1, host: '127.0.0.1', port: 9092 }], 'theirs'));
    const layout = singleBrokerLayout({ broker: port, controller: port + 1 });
    await assert.rejects(
      waitForKafka(layout, 1500, undefined, 'ours'),
      /answers for cluster theirs, not ours \(ours\)/,
    );
    await waitForKafka(layout, 1500, undefined, 'theirs');
  });
});
