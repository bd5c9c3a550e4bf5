import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Connection, type Client } from '@temporalio/client';
import type { Kafka } from 'kafkajs';
import pino from 'pino';
import type pg from 'pg';
import { createPool } from '../../../src/db/pool';
import { migrate } from '../../../src/db/migrate';
import { buildEventMessage } from '../../../src/events/event-message';
import { createKafka } from '../../../src/kafka/kafka-client';
import { dlqTopicOf } from '../../../src/events/dlq-topic';
import { readDlq } from '../../../src/kafka/dlq-reader';
import { createClient } from '../../../src/temporal/connection';
import { waitFor } from '../../../src/util/wait';
import { programOf } from '../../support/first-domain-program';
import { testConfig, uniqueName } from '../../support/services';

const ROOT = resolve(__dirname, '../../..');
const DOC = resolve(ROOT, 'docs/first-domain.md');

function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 600_000 });
  assert.equal(
    r.status,
    0,
    `${command} ${args.join(' ')} (exit ${r.status}):\n${r.stdout}\n${r.stderr}`,
  );
  return r.stdout;
}

// The package as npm packs it, installed into an empty project, runs the code-first program
// of docs/first-domain.md (a route, a claim, two steps, a result passed on, a step by `if`)
// end to end against the running stack. Nothing from this repository is on the program's module path.
describe('the packed package runs docs/first-domain.md in an empty project (npm pack, real stack)', function () {
  this.timeout(1_200_000);
  const config = testConfig();
  const topic = uniqueName('giftcards');
  const schema = uniqueName('giftcards');
  const taskQueue = uniqueName('tq');
  const cardId = uniqueName('card');
  let dir: string;
  let program: ChildProcess | undefined;
  let output = '';
  let pool: pg.Pool;
  let kafka: Kafka;
  let connection: Connection | undefined;
  let client: Client;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'onceflow-first-domain-'));
    pool = createPool(config.database, { schema });
    await migrate(pool, { schema });
    await pool.query('CREATE TABLE effects (key text PRIMARY KEY, what text NOT NULL)');
    kafka = createKafka(config.kafka, 'test', pino({ level: 'silent' }));
    // The team's topic as someone else made it: two partitions, and no DLQ topic.
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 2 }] });
    } finally {
      await admin.disconnect();
    }
    connection = await Connection.connect({ address: config.temporal.address });
    client = createClient(connection, config);
  });

  after(async () => {
    if (program && program.exitCode === null) {
      program.kill('SIGTERM');
      const exited = await waitFor(() => program!.exitCode !== null, {
        timeoutMs: 60_000,
        what: 'the program to stop on SIGTERM',
      }).catch(() => false);
      if (!exited) program.kill('SIGKILL');
    }
    await pool?.end();
    await connection?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs with both entry points typed, then one event acts once and a re-send ends duplicate', async () => {
    // npm pack (prepack builds dist/), then an empty project installs the tarball.
    run('npm', ['pack', '--silent', '--pack-destination', dir], ROOT);
    const tarball = readdirSync(dir).find((f) => /^onceflow-.*\.tgz$/.test(f));
    assert.ok(tarball, 'npm pack wrote a tarball');
    writeFileSync(join(dir, 'package.json'), '{ "name": "gift-cards", "private": true }\n');
    run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`, 'zod'],
      dir,
    );

    const files = programOf(readFileSync(DOC, 'utf8'));
    assert.deepEqual(Object.keys(files).sort(), ['main.ts', 'workflows.ts']);
    for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
    const lines = Object.values(files)
      .join('')
      .split('\n')
      .filter((l) => l.trim()).length;
    assert.ok(lines <= 50, `the program is ${lines} lines`);

    // Types: `onceflow` and `onceflow/workflow` resolve through the package's exports.
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'node16',
          moduleResolution: 'node16',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          // As Temporal's samples do: @temporalio/common's types import `ms` without its types.
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [resolve(ROOT, 'node_modules/@types')],
        },
        files: ['main.ts', 'workflows.ts'],
      }),
    );
    run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], dir);

    program = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
      cwd: dir,
      env: {
        ...process.env,
        KAFKA_TOPICS: topic,
        KAFKA_GROUP_ID: uniqueName('bridge'),
        TEMPORAL_TASK_QUEUE: taskQueue,
        DATABASE_SCHEMA: schema,
        WORKER_METRICS_PORT: '0',
        BRIDGE_METRICS_PORT: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    program.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-8000)));
    program.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-8000)));

    const producer = kafka.producer();
    await producer.connect();
    const data = { cardId, email: 'ada@example.com' };
    try {
      await producer.send({
        topic,
        messages: [
          // The first message is poison: its DLQ topic must be there, made when the bridge started.
          { key: cardId, value: 'not json', headers: { 'event-type': 'GiftCardBought' } },
          buildEventMessage({
            eventType: 'GiftCardBought',
            aggregateId: cardId,
            aggregateVersion: 1,
            data,
          }),
          // The same purchase re-emitted as version 2: a new identity, the same card.
          buildEventMessage({
            eventType: 'GiftCardBought',
            aggregateId: cardId,
            aggregateVersion: 2,
            data,
          }),
        ],
      });
    } finally {
      await producer.disconnect();
    }

    const outcomes = await waitFor(
      async () => {
        if (program!.exitCode !== null) throw new Error(`the program exited:\n${output}`);
        const runs = [];
        for await (const w of client.workflow.list({ query: `EntityId = '${cardId}'` }))
          runs.push(w);
        if (runs.length < 2 || runs.some((w) => w.status.name !== 'COMPLETED')) return undefined;
        const results = await Promise.all(
          runs.map(
            (w) => client.workflow.getHandle(w.workflowId).result() as Promise<{ outcome: string }>,
          ),
        );
        return results.map((r) => r.outcome).sort();
      },
      { timeoutMs: 600_000, intervalMs: 1000, what: `two completed runs of card ${cardId}` },
    ).catch((err: Error) => assert.fail(`${err.message}\nprogram output:\n${output}`));
    assert.deepEqual(outcomes, ['completed', 'duplicate'], 'the re-send ends duplicate');

    // One effect per step, under the key derived from the entity and the step.
    const { rows } = await pool.query<{ key: string; what: string }>(
      'SELECT key, what FROM effects ORDER BY key',
    );
    // The email step got the code the issue step returned.
    assert.deepEqual(rows, [
      { key: `card:${cardId}:email`, what: `email GC-${cardId}` },
      { key: `card:${cardId}:issue`, what: 'issue' },
    ]);
    // The bridge made the DLQ topic at start, as its source (2 partitions); the poison is in it.
    const dlq = await readDlq(kafka, dlqTopicOf(topic));
    assert.deepEqual(
      dlq.map((e) => [e.key?.toString(), e.reason]),
      [[cardId, 'unparseable']],
    );
    const admin = kafka.admin();
    await admin.connect();
    try {
      const [meta] = (await admin.fetchTopicMetadata({ topics: [dlqTopicOf(topic)] })).topics;
      assert.equal(meta!.partitions.length, 2, "the DLQ topic has its source's partitions");
    } finally {
      await admin.disconnect();
    }
    const claims = await pool.query<{ domain: string; settled: string }>(
      'SELECT domain, settled FROM entity_claims WHERE entity_id = $1',
      [cardId],
    );
    assert.deepEqual(claims.rows, [{ domain: 'giftcards', settled: 'completed' }]);

    // The installed CLI serves the program's own domain (--domains-module: its DOMAINS, loaded
    // without starting the processes), as it serves orders and payouts here.
    const cli = (args: string[], env: Record<string, string> = {}) => {
      const r = spawnSync(
        'npx',
        ['--no-install', 'onceflow', '--domains-module', 'main.ts', ...args],
        {
          cwd: dir,
          encoding: 'utf8',
          timeout: 120_000,
          env: { ...process.env, DATABASE_SCHEMA: schema, LOG_LEVEL: 'warn', ...env },
        },
      );
      return { code: r.status, json: JSON.parse(r.stdout || 'null'), stderr: r.stderr };
    };
    const shown = cli(['giftcards', 'show', '--json', '--', cardId]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(
      [shown.json.domain, shown.json.status, shown.json.outcome, shown.json.owner.settled],
      ['giftcards', 'COMPLETED', 'completed', 'completed'],
    );
    const listed = cli(['giftcards', 'list', '--prefix', cardId, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.json.query, /WorkflowType = 'giftCard'/);
    assert.equal(listed.json.count, 2, 'the owner and the duplicate');
    const other = cli(['orders', 'list', '--json']);
    assert.equal(other.code, 2, "only the program's domains");

    // The setup docs/first-domain.md tells a team to run, for a topic of its own: the
    // migrations (done), the topic and its DLQ topic.
    const next = uniqueName('giftcards');
    const setup = cli(['setup', '--json'], { KAFKA_TOPICS: next });
    assert.equal(setup.code, 0, setup.stderr);
    assert.deepEqual(setup.json.migrationsApplied, []);
    assert.deepEqual([...setup.json.topicsCreated].sort(), [next, dlqTopicOf(next)]);
    assert.deepEqual(cli(['setup', '--json'], { KAFKA_TOPICS: next }).json.topicsCreated, []);
  });
});
