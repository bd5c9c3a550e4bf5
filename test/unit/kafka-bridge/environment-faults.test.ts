import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NamespaceNotFoundError } from '@temporalio/common';
import { KafkaJSProtocolError } from 'kafkajs';
import pg from 'pg';
import pino from 'pino';
import { LedgerStoreError } from '../../../src/db/ledger-store';
import { classifyError } from '../../../src/kafka-bridge/classify-error';
import { DependencyCallError } from '../../../src/kafka-bridge/dependency-call';
import { ENVIRONMENT_FAULTS, OPERATOR_FAULTS } from '../../../src/kafka-bridge/error-codes';
import { adviseFault, type FaultContext } from '../../../src/kafka-bridge/fault-advice';
import { LedgerView } from '../../../src/kafka-bridge/ledger-view';
import {
  handleMessage,
  translateSafely,
  type StepContext,
} from '../../../src/kafka-bridge/message-step';
import { handleBatch } from '../../../src/kafka-bridge/partition-batch';
import { FakeControls, batchOf, counterSum, fakeDeps, orderPlaced } from './batch-fakes';

const context: FaultContext = {
  ledgerSchema: 'ledger',
  databaseRole: 'bridge',
  temporalNamespace: 'orders',
};

function postgres(sqlstate: string, message: string, operation = 'recordStarted'): Error {
  const err = new pg.DatabaseError(message, 0, 'error');
  err.code = sqlstate;
  err.severity = 'ERROR';
  return new LedgerStoreError(operation, 'ledger', err);
}

function advice(dependency: 'postgres' | 'temporal' | 'dlq', cause: unknown, target?: string) {
  const err = new DependencyCallError(dependency, cause, target);
  return adviseFault({ dependency, err, classification: classifyError(err), context, target });
}

describe('environment faults and their alert', () => {
  it('the alert’s two rules split the faults as the bridge does: outages vs an operator’s fix', () => {
    const selfHealing = ENVIRONMENT_FAULTS.filter((f) => !OPERATOR_FAULTS.has(f));
    assert.deepEqual(selfHealing, ['unavailable', 'contention', 'schema-pending']);
    const rules = readFileSync(
      resolve(__dirname, '../../../monitoring/prometheus/alerts.yml'),
      'utf8',
    );
    // schema-pending ends by itself within BRIDGE_SCHEMA_UNKNOWN_AFTER (the value is
    // dead-lettered, OnceflowDlqGrowing says so): neither rule pages for it.
    const outages = selfHealing.filter((f) => f !== 'schema-pending');
    assert.ok(rules.includes(`fault=~"|${outages.join('|')}"`), 'the outage rule selects them');
    assert.ok(
      rules.includes(`fault!~"|${selfHealing.join('|')}"`),
      'the operator rule selects the rest',
    );
  });
});

describe('fault advice: the log line names the fix', () => {
  it('a revoked grant: the statement, the table, the server’s words, the grant to run', () => {
    const line = advice(
      'postgres',
      postgres('42501', 'permission denied for table processed_events'),
    );
    assert.match(
      line,
      /^Postgres refused INSERT on ledger\.processed_events: .*permission denied for table processed_events \(42501\)\. Grant the bridge's role bridge: GRANT USAGE ON SCHEMA ledger and GRANT SELECT, INSERT ON ledger\.processed_events/,
    );
    assert.match(line, /The bridge retries; nothing is dead-lettered/);
  });

  it('a missing table names the migrations and the schema', () => {
    const line = advice(
      'postgres',
      postgres('42P01', 'relation "ledger.processed_events" does not exist', 'findKnown'),
    );
    assert.match(line, /^Postgres refused SELECT on ledger\.processed_events: .*\(42P01\)/);
    assert.match(line, /run the migrations against DATABASE_SCHEMA=ledger/);
  });

  it('read-only, disk full and a refused login each name their own fix', () => {
    assert.match(
      advice('postgres', postgres('25006', 'cannot execute INSERT in a read-only transaction')),
      /\(25006\)\. Postgres refuses writes: DATABASE_URL reaches a standby/,
    );
    assert.match(
      advice('postgres', postgres('53100', 'could not extend file: No space left on device')),
      /\(53100\)\. The database server's disk is full/,
    );
    assert.match(
      advice('postgres', postgres('28000', 'role "bridge" is not permitted to log in')),
      /\(28000\)\. Postgres refused the bridge's login: .*role bridge may log in/,
    );
  });

  it('a missing namespace and unregistered search attributes name the temporal commands', () => {
    assert.match(
      advice('temporal', new NamespaceNotFoundError('orders')),
      /temporal operator namespace create --namespace orders/,
    );
    const grpc = Object.assign(new Error('3 INVALID_ARGUMENT'), {
      code: 3,
      details: 'Namespace orders has no mapping defined for search attribute EntityId',
      metadata: {},
    });
    assert.match(
      advice('temporal', grpc),
      /search-attribute create --namespace orders --name EntityId --type Keyword/,
    );
  });

  it('a missing DLQ topic names the topic and the setup that creates it', () => {
    const err = new KafkaJSProtocolError({
      type: 'UNKNOWN_TOPIC_OR_PARTITION',
      code: 3,
      retriable: true,
      message: 'This server does not host this topic-partition',
    } as never);
    assert.match(
      advice('dlq', err, 'orders.dlq'),
      /^Kafka refused the DLQ write to orders\.dlq: .*\(UNKNOWN_TOPIC_OR_PARTITION\)\. Create orders\.dlq \(npx onceflow setup/,
    );
  });
});

describe('an environment fault on a message’s path (with fakes)', () => {
  function setUp() {
    const parts = fakeDeps();
    const lines: Array<{ level: number; msg: string; fault?: string }> = [];
    const log = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l)) });
    const ctx: StepContext = {
      topic: 'orders',
      partition: 0,
      deps: parts.deps,
      controls: new FakeControls(),
      view: new LedgerView(parts.ledger),
      log,
    };
    const message = orderPlaced('o-1', 7);
    const item = {
      message,
      index: 0,
      translation: translateSafely(message, parts.deps.routes, parts.deps.translateOptions),
    };
    return { ...parts, ctx, item, lines };
  }

  it('a missing namespace is retried past the attempt bound, alerted and advised, never dead-lettered', async () => {
    const s = setUp();
    s.starter.fail = (_cmd, call) => (call <= 8 ? new NamespaceNotFoundError('orders') : undefined);
    const outcome = await handleMessage(s.item, s.ctx);
    assert.equal(outcome.kind, 'started');
    assert.equal(s.dlq.records.length, 0);
    assert.equal(
      await counterSum(s.deps.metrics.transientRetries, {
        dependency: 'temporal',
        fault: 'namespace-missing',
      }),
      8,
    );
    const advised = s.lines.filter((l) => l.fault === 'namespace-missing');
    assert.equal(advised.length, 8);
    assert.ok(
      advised.every((l) => l.level === 50),
      'logged at error',
    );
    assert.match(advised[0]!.msg, /temporal operator namespace create --namespace orders/);
  });

  it('a revoked INSERT grant stalls the message, then it is recorded once the grant is back', async () => {
    const s = setUp();
    s.ledger.failRecordAll = (call) =>
      call <= 5
        ? postgres('42501', 'permission denied for table processed_events', 'recordAllStarted')
        : undefined;
    const controls = new FakeControls();
    await handleBatch(batchOf([s.item.message]), { ...s.deps, log: s.ctx.log }, controls);
    assert.match(
      s.lines.find((l) => l.fault === 'permission')?.msg ?? '',
      /^Postgres refused INSERT on ledger\.processed_events: .*GRANT SELECT, INSERT/,
    );
    assert.equal(s.ledger.rows.size, 1);
    assert.equal(s.dlq.records.length, 0);
    assert.deepEqual(controls.commits, ['8'], 'committed once the row is written');
    assert.equal(
      await counterSum(s.deps.metrics.transientRetries, {
        dependency: 'postgres',
        fault: 'permission',
      }),
      5,
    );
  });

  it('an unknown error is still dead-lettered after 3 tries, and names no fault', async () => {
    const s = setUp();
    s.starter.fail = () => new Error('something nobody recognises');
    const outcome = await handleMessage(s.item, s.ctx);
    assert.deepEqual(outcome, { kind: 'dead-lettered', reason: 'processing-failed', stub: false });
    assert.equal(s.starter.calls.length, 3);
    assert.equal(await counterSum(s.deps.metrics.transientRetries), 0);
  });
});
