import { strict as assert } from 'node:assert';
import { ReadAheadWindow, type WindowRecord } from '../../../src/kafka-bridge/read-ahead-window';

describe('ReadAheadWindow', () => {
  const rec = (offset: bigint, group: string): WindowRecord<string> => ({
    offset,
    bytes: 10,
    group,
    tenant: '',
    cls: 'live',
    item: `m${offset}`,
  });

  it("commits only the contiguous handled prefix; a key's next record is ready once its head is handled", () => {
    let seq = 0;
    const w = new ReadAheadWindow<string>('orders\u00000', () => seq++);
    assert.equal(w.commitOffset(), undefined, 'nothing fetched');
    const [a, b, c, d] = w.append(
      [rec(10n, 'x'), rec(11n, 'y'), rec(12n, 'z'), rec(13n, 'x')],
      16n,
    );
    assert.deepEqual(
      [a, b, c, d].map((e) => e!.state),
      ['ready', 'ready', 'ready', 'waiting'],
    );
    for (const e of [a!, b!, c!]) w.take(e);
    w.complete(c!);
    w.complete(b!);
    assert.equal(w.commitOffset(), 10n, 'offset 10 is not handled: nothing past it');
    assert.deepEqual(w.handledBeyond(), [11n, 12n]);
    assert.equal(w.complete(a!), d, "x's next record is ready now");
    assert.equal(w.commitOffset(), 13n);
    w.take(d!);
    w.complete(d!);
    assert.equal(w.commitOffset(), 16n, 'past the markers the fetch skipped');
    assert.equal(w.bytes, 0);
    assert.equal(d!.item, undefined, 'a handled record lets go of its payload');
  });

  it('leaves out records it already holds (an overlapping fetch), and handles int64 offsets beyond 2^53', () => {
    const w = new ReadAheadWindow<string>('orders\u00000', () => 0);
    const [e] = w.append([rec(9223372036854775805n, 'x')], 9223372036854775806n);
    assert.equal(w.append([rec(9223372036854775805n, 'x')], 9223372036854775806n).length, 0);
    w.take(e!);
    w.complete(e!);
    assert.equal(w.commitOffset(), 9223372036854775806n);
  });

  it('is full at either limit, drained below half of both', () => {
    const w = new ReadAheadWindow<string>('orders\u00000', () => 0);
    const limits = { records: 4, bytes: 1000 };
    assert.equal(w.pressure(limits), 'drained');
    const es = w.append(
      [0n, 1n, 2n, 3n].map((o) => rec(o, `k${o}`)),
      4n,
    );
    assert.equal(w.pressure(limits), 'full');
    for (const e of es.slice(0, 2)) {
      w.take(e);
      w.complete(e);
    }
    assert.equal(w.pressure(limits), 'between');
    w.take(es[2]!);
    w.complete(es[2]!);
    assert.equal(w.pressure(limits), 'drained');
  });
});
