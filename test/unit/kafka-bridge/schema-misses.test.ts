import { strict as assert } from 'node:assert';
import { classifyError } from '../../../src/kafka-bridge/classify-error';
import { DependencyCallError } from '../../../src/kafka-bridge/dependency-call';
import { handleBatch } from '../../../src/kafka-bridge/partition-batch';
import {
  RegistryUnprovenError,
  SchemaMisses,
  SchemaPendingError,
} from '../../../src/kafka-bridge/schema-misses';
import type { PartitionWait } from '../../../src/kafka-bridge/partition-pauses';
import { SchemaRegistryError, type RegistryDecoder } from '../../../src/kafka/registry-decoder';
import { FakeControls, batchOf, counterSum, fakeDeps, kafkaMessage } from './batch-fakes';

const URL = 'http://registry.internal/apis/ccompat/v7';
const notFound = (id: number) =>
  new SchemaRegistryError(URL, id, 404, Object.assign(new Error('not found'), { status: 404 }));

/** A clock the test moves by hand. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('SchemaMisses: when an unknown schema ID becomes the message’s fault', () => {
  it('waits while the ID is new, dead-letters it after `afterMs` once the registry answered for others; later values of that ID at once', async () => {
    const t = clock();
    let probes = 0;
    const misses = new SchemaMisses({
      afterMs: 60_000,
      probe: async () => void probes++,
      now: t.now,
    });
    misses.noteAnswered(1);
    assert.deepEqual(await misses.judge(7), { kind: 'wait', unknownForMs: 0 });
    t.advance(59_000);
    assert.equal((await misses.judge(7)).kind, 'wait');
    t.advance(1_000);
    const verdict = await misses.judge(7);
    assert.equal(verdict.kind, 'dead-letter');
    assert.match((verdict as { error: string }).error, /schema ID 7 is unknown .*60 s/);
    assert.equal((await misses.judge(7)).kind, 'dead-letter', 'the next value of ID 7 at once');
    assert.equal((await misses.judge(8)).kind, 'wait', 'another ID waits on its own');
    assert.equal(probes, 0, 'another schema decoded lately: no probe needed');
    misses.noteAnswered(7);
    assert.equal((await misses.judge(7)).kind, 'wait', 'an ID that resolved starts over');
  });

  it('with nothing decoded lately it asks the registry for its subjects, once per burst', async () => {
    const t = clock();
    let probes = 0;
    const misses = new SchemaMisses({ afterMs: 0, probe: async () => void probes++, now: t.now });
    const verdicts = await Promise.all([misses.judge(7), misses.judge(8), misses.judge(9)]);
    assert.deepEqual(
      verdicts.map((v) => v.kind),
      ['dead-letter', 'dead-letter', 'dead-letter'],
    );
    assert.equal(probes, 1);
    t.advance(11_000);
    await misses.judge(10);
    assert.equal(probes, 2, 'asked again once the answer is old');
  });

  it('a registry that answers no listing either (a wrong URL) keeps the stall: unproven, never dead-lettered', async () => {
    const t = clock();
    const refused = new Error('404 Not Found');
    const misses = new SchemaMisses({
      afterMs: 0,
      probe: () => Promise.reject(refused),
      now: t.now,
    });
    t.advance(3_600_000);
    assert.deepEqual(await misses.judge(7), { kind: 'unproven', probeError: refused });
  });

  it('classifies the wait as schema-pending and the unproven registry as schema-unknown', () => {
    const pending = new DependencyCallError(
      'registry',
      new SchemaPendingError(7, 5000, notFound(7)),
    );
    assert.deepEqual(
      [classifyError(pending).kind, classifyError(pending).fault],
      ['transient', 'schema-pending'],
    );
    const unproven = new DependencyCallError(
      'registry',
      new RegistryUnprovenError(
        7,
        new DependencyCallError('registry', notFound(7)),
        new Error('x'),
      ),
    );
    assert.equal(classifyError(unproven).fault, 'schema-unknown');
  });
});

describe('handleBatch: a value whose schema ID the registry does not know (with fakes)', () => {
  /** A registry that knows only schema 1. */
  const registry: RegistryDecoder = {
    url: URL,
    decode: async (_topic, value) => {
      const id = value.readUInt32BE(1);
      if (id !== 1) throw notFound(id);
      return { ok: true, decoded: { value: { n: 1 }, schemaId: 1, format: 'AVRO' } };
    },
  };
  const wireFormat = (id: number) => {
    const header = Buffer.alloc(5);
    header.writeUInt32BE(id, 1);
    return Buffer.concat([header, Buffer.from([2])]);
  };

  it('waits (schema-pending: the partition waits on the registry), then dead-letters it schema-unknown with its ID and bytes', async () => {
    const t = clock();
    let asked = 0;
    const misses = new SchemaMisses({
      afterMs: 1_000,
      probe: async () => undefined,
      now: () => {
        // Each registry judgement moves time on, so the wait ends after a few tries.
        asked++;
        t.advance(400);
        return t.now();
      },
    });
    const { deps, dlq } = fakeDeps({}, { registry, schemaMisses: misses });
    const controls = new FakeControls();
    const waits: PartitionWait[] = [];
    const value = wireFormat(99);
    await handleBatch(
      batchOf([kafkaMessage(0, { key: 'k', value, headers: { 'event-type': 'OrderPlaced' } })]),
      deps,
      { ...controls, onWait: (w) => waits.push(w) },
    );
    assert.ok(asked >= 3);
    assert.deepEqual(waits[0], { dependency: 'registry', fault: 'schema-pending' });
    assert.equal(dlq.records.length, 1);
    assert.equal(dlq.header(0, 'dlq-reason'), 'schema-unknown');
    assert.equal(dlq.header(0, 'dlq-schema-id'), '99');
    assert.ok(dlq.records[0]!.message.value!.equals(value));
    assert.ok((await counterSum(deps.metrics.transientRetries, { fault: 'schema-pending' })) >= 2);
    assert.deepEqual(controls.commits, ['1'], 'the partition moves on');
  });
});
