import { strict as assert } from 'node:assert';
import { toJsonValue } from '../../../src/kafka/registry-json';
import { fingerprint } from '../../../src/events/identity';

describe('toJsonValue: a decoded record as the JSON a route validates', () => {
  it('turns bytes, longs, dates, maps and class instances into JSON', () => {
    class Record {
      constructor(
        readonly id: string,
        readonly amount: bigint,
      ) {}
    }
    const value = {
      record: new Record('a', 12n),
      big: 2n ** 60n,
      bytes: Buffer.from('hi'),
      at: new Date('2026-01-02T03:04:05.000Z'),
      tags: new Map([['k', 'v']]),
      list: [1, null],
      gone: undefined,
    };
    assert.deepEqual(toJsonValue(value), {
      record: { id: 'a', amount: 12 },
      big: '1152921504606846976',
      bytes: 'aGk=',
      at: '2026-01-02T03:04:05.000Z',
      tags: { k: 'v' },
      list: [1, null],
    });
  });

  it('gives a value the canonical JSON can fingerprint (a bigint alone cannot be)', () => {
    assert.throws(() => fingerprint({ amount: 12n }));
    assert.doesNotThrow(() => fingerprint(toJsonValue({ amount: 12n })));
  });
});
