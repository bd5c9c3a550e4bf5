import assert from 'node:assert/strict';
import { coreSplit } from '../../../../harness/bench/pin-cores';

describe('bench core split', () => {
  it('gives the server the first CPU and everything else the rest', () => {
    assert.deepEqual(coreSplit(2), { server: '0', rest: '1-1', all: '0-1' });
    assert.deepEqual(coreSplit(8), { server: '0', rest: '1-7', all: '0-7' });
  });

  it('refuses a single CPU, naming the option', () => {
    assert.throws(() => coreSplit(1), /--pin-server needs at least 2 CPUs/);
  });
});
