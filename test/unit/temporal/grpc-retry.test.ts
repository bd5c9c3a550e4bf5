import { strict as assert } from 'node:assert';
import {
  Server,
  ServerCredentials,
  credentials,
  makeGenericClientConstructor,
  status,
  type Client,
  type ServerUnaryCall,
  type sendUnaryData,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { cancellableGrpcRetry } from '../../../src/temporal/grpc-retry';
import { waitFor } from '../../../src/util/wait';

const identity = (b: Buffer): Buffer => b;
const service = {
  echo: {
    path: '/test.Retry/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
} satisfies ServiceDefinition;

type EchoClient = Client & {
  echo(req: Buffer, cb: (err: ServiceError | null, res?: Buffer) => void): { cancel(): void };
};

/** Retries every UNAVAILABLE, `delayMs` apart, up to ten tries (Temporal's decider, shorter). */
const fastRetry = (delayMs: number, onWait?: () => void) =>
  cancellableGrpcRetry({
    delayFunction: () => {
      if (onWait) setImmediate(onWait);
      return delayMs;
    },
    retryableDecider: (attempt, s) => attempt < 10 && s.code === status.UNAVAILABLE,
  });

describe('cancellableGrpcRetry: Temporal client retries that a cancel stops', () => {
  let server: Server;
  let port: number;
  let failures: number;
  let calls: number;

  beforeEach(async () => {
    calls = 0;
    server = new Server();
    server.addService(service, {
      echo: (call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => {
        calls++;
        if (calls <= failures) cb({ code: status.UNAVAILABLE, details: 'down' });
        else cb(null, call.request);
      },
    });
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
  });
  afterEach(() => server.forceShutdown());

  const clientWith = (delayMs: number, onWait?: () => void): EchoClient => {
    const Echo = makeGenericClientConstructor(service, 'Retry');
    return new Echo(`127.0.0.1:${port}`, credentials.createInsecure(), {
      interceptors: [fastRetry(delayMs, onWait)],
    }) as unknown as EchoClient;
  };

  it('retries an unavailable server and returns its answer', async () => {
    failures = 2;
    const client = clientWith(5);
    try {
      const answer = await new Promise<Buffer | undefined>((resolve, reject) =>
        client.echo(Buffer.from('hello'), (err, res) => (err ? reject(err) : resolve(res))),
      );
      assert.equal(answer?.toString(), 'hello');
      assert.equal(calls, 3, 'two failed tries, then the answer');
    } finally {
      client.close();
    }
  });

  it('ends with the last status after its tries, as Temporal does', async () => {
    failures = 100;
    const client = clientWith(1);
    try {
      const err = await new Promise<ServiceError | null>((resolve) =>
        client.echo(Buffer.from('x'), (e) => resolve(e)),
      );
      assert.equal(err?.code, status.UNAVAILABLE);
      assert.equal(calls, 10);
    } finally {
      client.close();
    }
  });

  it('a call cancelled while it waits to retry never dials again, even once its channel is closed', async () => {
    failures = 100;
    const retryDelayMs = 30;
    // Cancelled as soon as the first failure has set the retry's timer.
    const client = clientWith(retryDelayMs, () => call.cancel());
    let answered: ServiceError | null | undefined;
    const call = client.echo(Buffer.from('x'), (e) => (answered = e));
    await waitFor(() => answered !== undefined, { timeoutMs: 5000, what: 'the caller told' });
    client.close();
    // Node fires timers in order of their deadlines: once this one fires, the retry timer
    // set before it with a shorter delay has fired too (and, before the fix, thrown
    // "Channel has been shut down" as an uncaught exception, failing this test).
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 4));
    assert.equal(calls, 1, 'no try after the cancel');
    assert.notEqual(answered, null, 'the caller got an error, not an answer');
  });
});
