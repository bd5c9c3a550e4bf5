import { strict as assert } from 'node:assert';
import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSSASLAuthenticationError,
} from 'kafkajs';
import { connectWhileUnavailable } from '../../../src/kafka-bridge/connect-kafka';

/** What KafkaJS's retrier throws once it gave up reaching the brokers (kafkajs/src/retry). */
const unreachable = () => {
  const e = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9095');
  // KafkaJS's typings leave out the constructor's options; its retrier passes the cause.
  const Wrapper = KafkaJSNonRetriableError as unknown as new (
    e: Error,
    o: { cause: Error },
  ) => Error;
  return new Wrapper(e, { cause: e });
};

describe('bridge: connecting to Kafka at start', () => {
  it('waits out every broker down (KafkaJS gave up) and connects once one answers', async () => {
    let calls = 0;
    const warnings: string[] = [];
    await connectWhileUnavailable(
      async () => {
        calls++;
        if (calls < 4) throw unreachable();
      },
      { what: 'consumer', warn: (_f, m) => warnings.push(m), backoffMs: () => 1 },
    );
    assert.equal(calls, 4);
    assert.deepEqual(warnings, Array(3).fill('consumer cannot reach Kafka; waiting'));
  });

  it('throws at once what is no outage (a refused login), so a bad setting stops the process', async () => {
    let calls = 0;
    const Refused = KafkaJSSASLAuthenticationError as unknown as new (m: string) => Error;
    const refused = new Refused('SASL PLAIN authentication failed');
    await assert.rejects(
      connectWhileUnavailable(
        async () => {
          calls++;
          throw refused;
        },
        { what: 'producer', warn: () => undefined, backoffMs: () => 1 },
      ),
      (err) => err === refused,
    );
    assert.equal(calls, 1);
  });

  it('gives up while stopping', async () => {
    let calls = 0;
    await assert.rejects(
      connectWhileUnavailable(
        async () => {
          calls++;
          throw unreachable();
        },
        { what: 'producer', warn: () => undefined, backoffMs: () => 1, stopped: () => calls >= 2 },
      ),
      KafkaJSNonRetriableError,
    );
    assert.equal(calls, 2);
  });
});
