import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import { buildEventMessage } from '../../../src/events/event-message';
import { dlqTopicOf } from '../../../src/events/dlq-topic';
import { readDlq } from '../../../src/kafka/dlq-reader';
import { waitFor } from '../../../src/util/wait';
import { programOf } from '../../support/first-domain-program';
import { uniqueName } from '../../support/services';
import {
  compileProject,
  createPackedProject,
  openTeamWorld,
  startProgram,
  type RunningProgram,
  type TeamWorld,
} from './packed-project';

const DOC = resolve(__dirname, '../../../docs/first-domain.md');

// The package as npm packs it, installed into an empty project, runs the code-first program
// of docs/first-domain.md (a route, a claim, two steps, a result passed on, a step by `if`)
// end to end against the running stack. Nothing from this repository is on the program's module path.
describe('the packed package runs docs/first-domain.md in an empty project (npm pack, real stack)', function () {
  this.timeout(1_200_000);
  const topic = uniqueName('giftcards');
  const schema = uniqueName('giftcards');
  const taskQueue = uniqueName('tq');
  const cardId = uniqueName('card');
  let dir: string;
  let program: RunningProgram | undefined;
  let pool: pg.Pool;
  let kafka: Kafka;
  let client: Client;
  let world: TeamWorld | undefined;

  before(async () => {
    // The team's topic as someone else made it: two partitions, and no DLQ topic.
    world = await openTeamWorld({ schema, topic, partitions: 2 });
    ({ pool, kafka, client } = world);
  });

  after(async () => {
    await program?.stop();
    await world?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs with both entry points typed, then one event acts once and a re-send ends duplicate', async () => {
    // npm pack (prepack builds dist/), then an empty project installs the tarball.
    dir = createPackedProject('gift-cards');

    const files = programOf(readFileSync(DOC, 'utf8'));
    assert.deepEqual(Object.keys(files).sort(), ['main.ts', 'workflows.ts']);
    for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
    const lines = Object.values(files)
      .join('')
      .split('\n')
      .filter((l) => l.trim()).length;
    assert.ok(lines <= 50, `the program is ${lines} lines`);

    // Types: `onceflow` and `onceflow/workflow` resolve through the package's exports.
    const compiled = compileProject(dir, ['main.ts', 'workflows.ts']);
    assert.equal(compiled.status, 0, compiled.output);

    program = startProgram(dir, {
      KAFKA_TOPICS: topic,
      KAFKA_GROUP_ID: uniqueName('bridge'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATABASE_SCHEMA: schema,
      LOG_LEVEL: 'warn',
    });

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
        if (program!.process.exitCode !== null)
          throw new Error(`the program exited:\n${program!.output()}`);
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
    ).catch((err: Error) => assert.fail(`${err.message}\nprogram output:\n${program!.output()}`));
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
