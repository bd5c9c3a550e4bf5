import { strict as assert } from 'node:assert';
import { generateFuzzStream, type FuzzMessage } from '../../../../harness/fuzz/generate';
import { judgeRun, type JudgeInput } from '../../../../harness/fuzz/judge';
import type { Placement } from '../../../../harness/fuzz/produce';

const stream = (seed: number, messages = 2_000) =>
  generateFuzzStream({ messages, seed, prefix: 'fz-', partitions: 3, skus: ['a', 'b', 'c'] });

describe('fuzz: generator and judge', () => {
  it('generates the same stream for the same seed, another for another', () => {
    const a = stream(7);
    const b = stream(7);
    assert.deepEqual(
      a.messages.map((m) => [m.kind, m.partition, m.value?.length]),
      b.messages.map((m) => [m.kind, m.partition, m.value?.length]),
    );
    assert.notDeepEqual(
      stream(8).messages.map((m) => m.kind),
      a.messages.map((m) => m.kind),
    );
  });

  it('mixes about 2 % valid orders into every hostile kind, one huge value per thousand', () => {
    const { messages, countsByKind } = stream(3);
    const valid = messages.filter((m) => m.expect === 'start').length / messages.length;
    assert.ok(valid > 0.01 && valid < 0.04, `valid share ${valid}`);
    for (const kind of ['prototype-headers', 'null-header-values', 'deep-nesting', 'odd-ids'])
      assert.ok((countsByKind[kind] ?? 0) > 0, kind);
    assert.equal(countsByKind['huge-value'], 2);
    const huge = messages.find((m) => m.kind === 'huge-value')!;
    assert.ok(huge.value!.length > 1024 * 1024);
  });

  it('keeps prototype-named headers as own names of a prototype-less object', () => {
    const m = stream(3).messages.find(
      (x) => x.kind === 'prototype-headers' && Object.hasOwn(x.headers, '__proto__'),
    );
    assert.ok(m, 'a __proto__ header was generated');
    assert.equal(Object.getPrototypeOf(m.headers), null);
    assert.ok(Object.keys(m.headers).includes('__proto__'));
  });

  it('accounts for each message by its coordinates and names the message a wedge stopped at', () => {
    const msg = (seq: number, kind: string, expect: FuzzMessage['expect']): FuzzMessage => ({
      seq,
      kind,
      expect,
      partition: 0,
      key: 'k',
      value: 'v',
      headers: Object.create(null) as FuzzMessage['headers'],
    });
    const messages = [
      msg(0, 'valid-order', 'start'),
      msg(1, 'binary-value', 'dlq'),
      msg(2, 'redelivery', 'duplicate'),
      msg(3, 'deep-nesting', 'dlq'),
      msg(4, 'tiny-value', 'dlq'),
    ];
    const placements = new Map<number, Placement>(
      messages.map((m) => [m.seq, { offset: m.seq, codec: 'zstd' }]),
    );
    const input: JudgeInput = {
      topic: 't',
      messages,
      placements,
      offsets: [{ partition: 0, committed: 3, end: 5 }],
      dlq: [{ sourceTopic: 't', sourcePartition: 0, sourceOffset: 1, reason: 'unparseable' }],
      ledger: new Set(['0/0']),
      trouble: {
        byPartition: new Map([
          [0, { lastError: 'RangeError: too deep', count: 3, lastMessage: 'x' }],
        ]),
        restarts: [],
      },
      bridgeExits: 0,
      consumerRestarts: 0,
      reconcile: { discrepancies: 0 },
      translationThrows: [{ seq: 4, kind: 'tiny-value', error: 'RangeError: too deep' }],
      workflowsRunning: 0,
    };
    const j = judgeRun(input);
    assert.deepEqual(
      [...j.outcomes.values()],
      ['started', 'dead-lettered', 'deduplicated', 'unhandled', 'unhandled'],
    );
    assert.equal(j.checks['unhandled-messages'], 2);
    assert.equal(j.checks['wedged-partitions'], 1);
    assert.equal(j.checks['translation-throws'], 1);
    // Offset 3 comes first, but offset 4 throws what the bridge logged: it is the one blamed.
    assert.equal(j.wedges[0]!.at!.seq, 4);
    assert.match(j.wedges[0]!.at!.why!, /too deep/);
    assert.equal(j.dlqByReason['unparseable'], 1);
  });
});
