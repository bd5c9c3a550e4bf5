import { connect } from 'node:net';

/**
 * Asks one broker which brokers are registered with the cluster (unfenced), without asking
 * about any topic: a Metadata request (version 4) for an empty topic list. KafkaJS cannot
 * send that (its empty list means "all topics") and throws on any leaderless partition of any
 * topic in the answer, so its describeCluster says "not ready" while, say, a replication-1
 * topic's only broker is down, however healthy the broker asked is. Version 4 is the oldest
 * Kafka 4 still accepts; the answer's layout is fixed (non-flexible) up to version 8.
 */
export async function registeredBrokers(
  host: string,
  port: number,
  timeoutMs = 2000,
): Promise<number[]> {
  return (await probeKafka(host, port, timeoutMs)).brokerIds;
}

/** What one broker's Metadata answer says: its cluster, and the brokers registered in it. */
export interface KafkaProbe {
  /** The cluster the answering broker belongs to (null from a broker that does not say). */
  clusterId: string | null;
  brokerIds: number[];
}

/**
 * registeredBrokers with the answering broker's cluster ID: on a shared machine another
 * stack's Kafka can listen on a port ours left free while its broker was down, and answer
 * with broker IDs ours has too.
 */
export function probeKafka(host: string, port: number, timeoutMs = 2000): Promise<KafkaProbe> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const chunks: Buffer[] = [];
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no Metadata answer from ${host}:${port}`)));
    socket.on('error', fail);
    socket.on('connect', () => socket.write(metadataRequest()));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const data = Buffer.concat(chunks);
      if (data.length < 4 || data.length < 4 + data.readInt32BE(0)) return;
      socket.destroy();
      try {
        resolve(parseMetadata(data.subarray(4)));
      } catch (err) {
        reject(err as Error);
      }
    });
  });
}

const CLIENT_ID = 'onceflow-stack';

function metadataRequest(): Buffer {
  const client = Buffer.from(CLIENT_ID);
  const body = Buffer.alloc(2 + 2 + 4 + 2 + client.length + 4 + 1);
  let o = 0;
  o = body.writeInt16BE(3, o); // api_key: Metadata
  o = body.writeInt16BE(4, o); // api_version
  o = body.writeInt32BE(1, o); // correlation_id
  o = body.writeInt16BE(client.length, o);
  o += client.copy(body, o);
  o = body.writeInt32BE(0, o); // topics: an empty array (not null, which means all)
  body.writeInt8(0, o); // allow_auto_topic_creation: false
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** correlation_id, throttle_time_ms, the brokers (node_id, host, port, rack), cluster_id. */
function parseMetadata(response: Buffer): KafkaProbe {
  let o = 4 + 4;
  const count = response.readInt32BE(o);
  o += 4;
  const brokerIds: number[] = [];
  for (let i = 0; i < count; i++) {
    brokerIds.push(response.readInt32BE(o));
    o += 4;
    o += 2 + response.readInt16BE(o); // host
    o += 4; // port
    const rack = response.readInt16BE(o);
    o += 2 + Math.max(0, rack); // rack: -1 = null
  }
  const idLength = response.readInt16BE(o);
  const clusterId =
    idLength < 0 ? null : response.subarray(o + 2, o + 2 + idLength).toString('utf8');
  return { clusterId, brokerIds };
}
