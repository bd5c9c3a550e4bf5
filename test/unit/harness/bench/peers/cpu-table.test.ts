import assert from 'node:assert/strict';
import { cpuColumns, cpuRoots } from '../../../../../harness/bench/peers/cpu-table';

describe('bench:peers CPU table', () => {
  it('charges a system with its own processes, its providers and the stack services, not a shared entry twice', () => {
    const roots = cpuRoots(
      [
        { name: 'temporal dev server (shared)', pid: 10, shared: true },
        { name: 'onceflow-worker', pid: 21 },
        { name: 'onceflow-bridge', pid: 22 },
        { name: 'onceflow-providers', pid: 23 },
      ],
      { temporal: 10, kafka: 11, postgres: 12, codec: undefined },
    );
    assert.deepEqual(roots, {
      temporal: 10,
      kafka: 11,
      postgres: 12,
      'onceflow-worker': 21,
      'onceflow-bridge': 22,
      'onceflow-providers': 23,
    });
  });

  it('sums own processes and each shared group into one row', () => {
    const row = cpuColumns({
      'restate-server': 3,
      'restate-service': 2.5,
      'restate-providers': 1,
      kafka: 0.5,
      'kafka-1': 0.25,
      postgres: 4,
      temporal: 0.1,
      'schema-registry': 0.1,
      total: 11.45,
    });
    assert.deepEqual(row, [
      '5.5 (restate-server 3, restate-service 2.5)',
      '0.8',
      '4.0',
      '0.1',
      '1.0',
      '11.45',
    ]);
  });
});
