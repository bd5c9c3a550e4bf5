import { strict as assert } from 'node:assert';
import { ServiceError } from '@temporalio/client';
import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSRequestTimeoutError,
} from 'kafkajs';
import pg from 'pg';
import { LedgerStoreError } from '../../../src/db/ledger-store';
import { classifyError, type ErrorKind } from '../../../src/kafka-bridge/classify-error';

/** A KafkaJS protocol error as the broker's error code table builds it. */
function kafkaProtocol(type: string, retriable: boolean): Error {
  return new KafkaJSProtocolError({ type, code: 0, retriable, message: type } as never);
}

/** A grpc-js status error as the Temporal client keeps it in ServiceError.cause. */
function temporal(code: number): Error {
  const grpc = Object.assign(new Error(`${code} status`), { code, details: 'x', metadata: {} });
  return new ServiceError('temporal call failed', { cause: grpc });
}

function postgres(sqlstate: string): Error {
  const err = new pg.DatabaseError('db said no', 0, 'error');
  err.code = sqlstate;
  err.severity = 'ERROR';
  return new LedgerStoreError('findKnown', 'public', err);
}

function network(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

const TABLE: Array<[string, unknown, ErrorKind]> = [
  // Kafka: by type first, then KafkaJS's retriable flag.
  ['kafka MESSAGE_TOO_LARGE', kafkaProtocol('MESSAGE_TOO_LARGE', false), 'permanent'],
  ['kafka INVALID_RECORD', kafkaProtocol('INVALID_RECORD', false), 'permanent'],
  [
    'kafka CORRUPT_MESSAGE (retriable flag notwithstanding)',
    kafkaProtocol('CORRUPT_MESSAGE', true),
    'permanent',
  ],
  ['kafka NOT_LEADER_FOR_PARTITION', kafkaProtocol('NOT_LEADER_FOR_PARTITION', true), 'transient'],
  ['kafka LEADER_NOT_AVAILABLE', kafkaProtocol('LEADER_NOT_AVAILABLE', true), 'transient'],
  ['kafka REQUEST_TIMED_OUT', kafkaProtocol('REQUEST_TIMED_OUT', true), 'transient'],
  [
    'kafka TOPIC_AUTHORIZATION_FAILED (an operator fixes it)',
    kafkaProtocol('TOPIC_AUTHORIZATION_FAILED', false),
    'transient',
  ],
  [
    'kafka OUT_OF_ORDER_SEQUENCE_NUMBER (producer state after a failover)',
    kafkaProtocol('OUT_OF_ORDER_SEQUENCE_NUMBER', false),
    'transient',
  ],
  ['kafka other non-retriable', kafkaProtocol('UNSUPPORTED_VERSION', false), 'permanent'],
  [
    'KafkaJSConnectionError',
    new KafkaJSConnectionError('Connection error: ECONNREFUSED'),
    'transient',
  ],
  ['KafkaJSRequestTimeoutError', new KafkaJSRequestTimeoutError('Request timed out'), 'transient'],
  [
    'retries exceeded after connection errors',
    new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('down'), {
      retryCount: 5,
      retryTime: 1,
    } as never),
    'transient',
  ],
  [
    'KafkaJS wrapper around an encoder TypeError (constructor header)',
    Object.assign(new KafkaJSNonRetriableError(new TypeError('value.toString is not a function')), {
      cause: new TypeError('value.toString is not a function'),
    }),
    'permanent',
  ],
  // Temporal: gRPC status on the ServiceError's cause.
  ['temporal UNAVAILABLE', temporal(14), 'transient'],
  ['temporal DEADLINE_EXCEEDED', temporal(4), 'transient'],
  ['temporal RESOURCE_EXHAUSTED', temporal(8), 'transient'],
  ['temporal ABORTED', temporal(10), 'transient'],
  ['temporal INTERNAL', temporal(13), 'transient'],
  ['temporal UNAUTHENTICATED', temporal(16), 'transient'],
  ['temporal INVALID_ARGUMENT', temporal(3), 'permanent'],
  ['temporal FAILED_PRECONDITION', temporal(9), 'permanent'],
  ['temporal UNKNOWN', temporal(2), 'unknown'],
  // Postgres: SQLSTATE class, through the store's wrapper.
  ['postgres 08006 connection failure', postgres('08006'), 'transient'],
  ['postgres 53300 too many connections', postgres('53300'), 'transient'],
  ['postgres 57P01 admin shutdown', postgres('57P01'), 'transient'],
  ['postgres 57P03 cannot connect now', postgres('57P03'), 'transient'],
  ['postgres 57014 statement timeout', postgres('57014'), 'transient'],
  ['postgres 40001 serialization failure', postgres('40001'), 'transient'],
  ['postgres 40P01 deadlock', postgres('40P01'), 'transient'],
  ['postgres 22021 invalid byte sequence', postgres('22021'), 'permanent'],
  ['postgres 22003 numeric out of range', postgres('22003'), 'permanent'],
  ['postgres 23505 unique violation', postgres('23505'), 'permanent'],
  ['postgres 42P01 undefined table', postgres('42P01'), 'permanent'],
  ['postgres XX000 internal', postgres('XX000'), 'unknown'],
  ['pg connection lost (no code)', new Error('Connection terminated unexpectedly'), 'transient'],
  ['pg-pool connect timeout', new Error('timeout exceeded when trying to connect'), 'transient'],
  ['pg query_timeout', new Error('Query read timeout'), 'transient'],
  // Node network errors by code.
  ...[
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'EAI_AGAIN',
    'ENOTFOUND',
    'EHOSTUNREACH',
  ].map((code): [string, unknown, ErrorKind] => [`network ${code}`, network(code), 'transient']),
  // Our code or the data tripping it, and the unknown.
  ['TypeError', new TypeError('x is not a function'), 'permanent'],
  ['RangeError (deep JSON)', new RangeError('Maximum call stack size exceeded'), 'permanent'],
  ['plain Error', new Error('something odd'), 'unknown'],
  ['a thrown string', 'boom', 'unknown'],
  ['undefined', undefined, 'unknown'],
  ['null', null, 'unknown'],
];

describe('classifyError', () => {
  for (const [name, err, kind] of TABLE) {
    it(`${name} → ${kind}`, () => {
      assert.equal(classifyError(err).kind, kind);
    });
  }

  it('names the code that decided, found in the cause chain', () => {
    const c = classifyError(postgres('57014'));
    assert.deepEqual([c.kind, c.source, c.code], ['transient', 'postgres', '57014']);
    const k = classifyError(kafkaProtocol('MESSAGE_TOO_LARGE', false));
    assert.deepEqual([k.source, k.code], ['kafka', 'MESSAGE_TOO_LARGE']);
    assert.equal(classifyError(temporal(14)).code, 'UNAVAILABLE');
  });

  it('survives a cause cycle and hostile getters', () => {
    const a: Error & { cause?: unknown } = new Error('a');
    const b: Error & { cause?: unknown } = new Error('b', { cause: a });
    a.cause = b;
    assert.equal(classifyError(a).kind, 'unknown');
    const hostile = {};
    Object.defineProperty(hostile, 'code', {
      get() {
        throw new Error('no');
      },
    });
    assert.equal(classifyError(hostile).kind, 'unknown');
  });
});
