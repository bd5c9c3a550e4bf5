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
import { NamespaceNotFoundError } from '@temporalio/common';
import {
  classifyError,
  type EnvironmentFault,
  type ErrorKind,
} from '../../../src/kafka-bridge/classify-error';
import { DependencyCallError } from '../../../src/kafka-bridge/dependency-call';

/** A KafkaJS protocol error as the broker's error code table builds it. */
function kafkaProtocol(type: string, retriable: boolean): Error {
  return new KafkaJSProtocolError({ type, code: 0, retriable, message: type } as never);
}

/** A grpc-js status error as the Temporal client keeps it in ServiceError.cause. */
function temporal(code: number, details = 'x'): Error {
  const grpc = Object.assign(new Error(`${code} status`), { code, details, metadata: {} });
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

/** [case, error, kind, fault (for transient)] */
const TABLE: Array<[string, unknown, ErrorKind, EnvironmentFault?]> = [
  // Kafka: by type first, then KafkaJS's retriable flag.
  ['kafka MESSAGE_TOO_LARGE', kafkaProtocol('MESSAGE_TOO_LARGE', false), 'permanent'],
  ['kafka INVALID_RECORD', kafkaProtocol('INVALID_RECORD', false), 'permanent'],
  [
    'kafka CORRUPT_MESSAGE (retriable flag notwithstanding)',
    kafkaProtocol('CORRUPT_MESSAGE', true),
    'permanent',
  ],
  [
    'kafka NOT_LEADER_FOR_PARTITION',
    kafkaProtocol('NOT_LEADER_FOR_PARTITION', true),
    'transient',
    'unavailable',
  ],
  [
    'kafka LEADER_NOT_AVAILABLE',
    kafkaProtocol('LEADER_NOT_AVAILABLE', true),
    'transient',
    'unavailable',
  ],
  ['kafka REQUEST_TIMED_OUT', kafkaProtocol('REQUEST_TIMED_OUT', true), 'transient', 'unavailable'],
  [
    'kafka TOPIC_AUTHORIZATION_FAILED (an operator fixes it)',
    kafkaProtocol('TOPIC_AUTHORIZATION_FAILED', false),
    'transient',
    'permission',
  ],
  [
    'kafka OUT_OF_ORDER_SEQUENCE_NUMBER (producer state after a failover)',
    kafkaProtocol('OUT_OF_ORDER_SEQUENCE_NUMBER', false),
    'transient',
    'unavailable',
  ],
  ['kafka other non-retriable', kafkaProtocol('UNSUPPORTED_VERSION', false), 'permanent'],
  [
    'kafka UNKNOWN_TOPIC_OR_PARTITION (a missing DLQ topic)',
    kafkaProtocol('UNKNOWN_TOPIC_OR_PARTITION', true),
    'transient',
    'topic-missing',
  ],
  [
    'kafka GROUP_AUTHORIZATION_FAILED',
    kafkaProtocol('GROUP_AUTHORIZATION_FAILED', false),
    'transient',
    'permission',
  ],
  [
    'kafka SASL_AUTHENTICATION_FAILED',
    kafkaProtocol('SASL_AUTHENTICATION_FAILED', false),
    'transient',
    'authentication',
  ],
  [
    'kafka KAFKA_STORAGE_ERROR (retriable)',
    kafkaProtocol('KAFKA_STORAGE_ERROR', true),
    'transient',
    'unavailable',
  ],
  [
    'KafkaJSConnectionError',
    new KafkaJSConnectionError('Connection error: ECONNREFUSED'),
    'transient',
    'unavailable',
  ],
  [
    'KafkaJSRequestTimeoutError',
    new KafkaJSRequestTimeoutError('Request timed out'),
    'transient',
    'unavailable',
  ],
  [
    'retries exceeded after connection errors',
    new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('down'), {
      retryCount: 5,
      retryTime: 1,
    } as never),
    'transient',
    'unavailable',
  ],
  [
    'KafkaJS wrapper around an encoder TypeError (constructor header)',
    Object.assign(new KafkaJSNonRetriableError(new TypeError('value.toString is not a function')), {
      cause: new TypeError('value.toString is not a function'),
    }),
    'permanent',
  ],
  // Temporal: gRPC status on the ServiceError's cause.
  ['temporal UNAVAILABLE', temporal(14), 'transient', 'unavailable'],
  ['temporal DEADLINE_EXCEEDED', temporal(4), 'transient', 'unavailable'],
  ['temporal RESOURCE_EXHAUSTED', temporal(8), 'transient', 'unavailable'],
  ['temporal ABORTED', temporal(10), 'transient', 'unavailable'],
  ['temporal INTERNAL', temporal(13), 'transient', 'unavailable'],
  ['temporal UNAUTHENTICATED', temporal(16), 'transient', 'authentication'],
  ['temporal PERMISSION_DENIED', temporal(7), 'transient', 'permission'],
  [
    'temporal NamespaceNotFoundError (the server’s NamespaceNotFoundFailure)',
    new NamespaceNotFoundError('orders'),
    'transient',
    'namespace-missing',
  ],
  [
    'temporal INVALID_ARGUMENT for an unregistered search attribute',
    temporal(3, 'Namespace orders has no mapping defined for search attribute OrderId'),
    'transient',
    'search-attributes-missing',
  ],
  ['temporal INVALID_ARGUMENT', temporal(3), 'permanent'],
  [
    'temporal INVALID_ARGUMENT for a search attribute value',
    temporal(3, 'search attribute OrderId of size 3000 exceeds size limit 2048'),
    'permanent',
  ],
  [
    'temporal NOT_FOUND (not a namespace: stays the request’s)',
    temporal(5, 'workflow not found'),
    'permanent',
  ],
  ['temporal FAILED_PRECONDITION', temporal(9), 'permanent'],
  ['temporal UNKNOWN', temporal(2), 'unknown'],
  // Postgres: SQLSTATE class, through the store's wrapper.
  ['postgres 08006 connection failure', postgres('08006'), 'transient', 'unavailable'],
  ['postgres 53300 too many connections', postgres('53300'), 'transient', 'resources'],
  ['postgres 57P01 admin shutdown', postgres('57P01'), 'transient', 'unavailable'],
  ['postgres 57P03 cannot connect now', postgres('57P03'), 'transient', 'unavailable'],
  ['postgres 57014 statement timeout', postgres('57014'), 'transient', 'unavailable'],
  ['postgres 40001 serialization failure', postgres('40001'), 'transient', 'contention'],
  ['postgres 40P01 deadlock', postgres('40P01'), 'transient', 'contention'],
  ['postgres 22021 invalid byte sequence', postgres('22021'), 'permanent'],
  ['postgres 22003 numeric out of range', postgres('22003'), 'permanent'],
  ['postgres 23505 unique violation', postgres('23505'), 'permanent'],
  // The environment's faults an operator fixes: the partition stalls, nothing is dead-lettered.
  [
    'postgres 42501 permission denied (a revoked grant)',
    postgres('42501'),
    'transient',
    'permission',
  ],
  [
    'postgres 42P01 undefined table (unmigrated, renamed)',
    postgres('42P01'),
    'transient',
    'schema-missing',
  ],
  [
    'postgres 42703 undefined column (a migration missing)',
    postgres('42703'),
    'transient',
    'schema-missing',
  ],
  ['postgres 3F000 invalid schema name', postgres('3F000'), 'transient', 'schema-missing'],
  ['postgres 42883 undefined function', postgres('42883'), 'transient', 'schema-missing'],
  ['postgres 25006 read-only transaction (a standby)', postgres('25006'), 'transient', 'read-only'],
  ['postgres 53100 disk full', postgres('53100'), 'transient', 'disk-full'],
  ['postgres 53200 out of memory', postgres('53200'), 'transient', 'resources'],
  ['postgres 28000 role may not log in', postgres('28000'), 'transient', 'authentication'],
  [
    'postgres 28P01 password authentication failed',
    postgres('28P01'),
    'transient',
    'authentication',
  ],
  ['postgres 55P03 lock not available', postgres('55P03'), 'transient', 'contention'],
  ['postgres 58030 I/O error', postgres('58030'), 'transient', 'unavailable'],
  // The rest of class 42 is a statement's own fault (a bug), not the environment's.
  ['postgres 42601 syntax error', postgres('42601'), 'permanent'],
  ['postgres 42804 datatype mismatch', postgres('42804'), 'permanent'],
  ['postgres 54000 program limit exceeded', postgres('54000'), 'unknown'],
  ['postgres XX000 internal', postgres('XX000'), 'unknown'],
  [
    'pg connection lost (no code)',
    new Error('Connection terminated unexpectedly'),
    'transient',
    'unavailable',
  ],
  [
    'pg-pool connect timeout',
    new Error('timeout exceeded when trying to connect'),
    'transient',
    'unavailable',
  ],
  ['pg query_timeout', new Error('Query read timeout'), 'transient', 'unavailable'],
  // Node network errors by code.
  ...[
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'EAI_AGAIN',
    'ENOTFOUND',
    'EHOSTUNREACH',
  ].map((code): [string, unknown, ErrorKind, EnvironmentFault] => [
    `network ${code}`,
    network(code),
    'transient',
    'unavailable',
  ]),
  // Our code or the data tripping it, and the unknown.
  ['TypeError', new TypeError('x is not a function'), 'permanent'],
  ['RangeError (deep JSON)', new RangeError('Maximum call stack size exceeded'), 'permanent'],
  ['plain Error', new Error('something odd'), 'unknown'],
  ['a thrown string', 'boom', 'unknown'],
  ['undefined', undefined, 'unknown'],
  ['null', null, 'unknown'],
];

describe('classifyError', () => {
  for (const [name, err, kind, fault] of TABLE) {
    it(`${name} → ${kind}${fault ? ` (${fault})` : ''}`, () => {
      const c = classifyError(err);
      assert.deepEqual([c.kind, c.fault], [kind, fault]);
    });
  }

  it('reads through the bridge’s DependencyCallError wrapper', () => {
    const c = classifyError(new DependencyCallError('postgres', postgres('42501')));
    assert.deepEqual([c.kind, c.fault, c.code], ['transient', 'permission', '42501']);
  });

  it('only recognised environment faults are transient: every unknown stays bounded', () => {
    for (const [, err, kind, fault] of TABLE) {
      const c = classifyError(err);
      if (c.kind === 'transient') assert.ok(c.fault, `a transient verdict names its fault`);
      else assert.equal(c.fault, undefined);
      assert.equal(kind === 'transient', fault !== undefined);
    }
  });

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
