import { strict as assert } from 'node:assert';
import { columnOf, formatDrain } from '../../../../harness/bench/drain-table';
import type { DrainResult } from '../../../../harness/bench/drain';
import { applyTopologyOptions, describeTopology } from '../../../../harness/bench/topology-option';

describe('bench: the topology option and the drain table on three brokers', () => {
  const saved = { t: process.env.ONCEFLOW_TEMPORAL, k: process.env.ONCEFLOW_KAFKA_BROKERS };
  afterEach(() => {
    for (const [name, v] of [
      ['ONCEFLOW_TEMPORAL', saved.t],
      ['ONCEFLOW_KAFKA_BROKERS', saved.k],
    ] as const) {
      if (v === undefined) delete process.env[name];
      else process.env[name] = v;
    }
  });

  it('puts --temporal and --kafka-brokers where the stack reads them, and names the topology', () => {
    delete process.env.ONCEFLOW_TEMPORAL;
    delete process.env.ONCEFLOW_KAFKA_BROKERS;
    assert.deepEqual(applyTopologyOptions({}), { temporal: 'dev', kafkaBrokers: 1 });
    const t = applyTopologyOptions({ temporal: 'server', 'kafka-brokers': '3' });
    assert.deepEqual(t, { temporal: 'server', kafkaBrokers: 3 });
    assert.equal(process.env.ONCEFLOW_TEMPORAL, 'server');
    assert.equal(process.env.ONCEFLOW_KAFKA_BROKERS, '3');
    assert.match(describeTopology(t), /Temporal server .*three Kafka brokers/);
    assert.throws(() => applyTopologyOptions({ 'kafka-brokers': '2' }), /ONCEFLOW_KAFKA_BROKERS/);
  });

  it('adds the brokers and the controller into the kafka column, the Web UI into temporal', () => {
    assert.equal(columnOf('kafka-2'), 'kafka');
    assert.equal(columnOf('kafka-controller'), 'kafka');
    assert.equal(columnOf('temporal-ui'), 'temporal');
    const fig = {
      perSecond: 10,
      seconds: 100,
      cpuMsPerItem: {
        bridge: 1,
        worker: 2,
        temporal: 10,
        'temporal-ui': 0.5,
        'kafka-1': 1,
        'kafka-2': 1.2,
        'kafka-3': 0.8,
        'kafka-controller': 0.1,
        postgres: 3,
        total: 19.6,
      },
    };
    const table = formatDrain({
      orders: 1000,
      drain: { ...fig, peakRssMiB: { worker: 100, bridge: 80 } },
      floorEmpty: fig,
      floorThreeActivities: fig,
      ratios: { toEmpty: 0.5, toThreeActivities: 0.9 },
      histories: {
        order: {
          runs: 50,
          events: { typical: 26, min: 26, max: 30 },
          workflowTasks: 4,
          byType: {},
        },
        payout: {
          runs: 20,
          events: { typical: 31, min: 31, max: 31 },
          workflowTasks: 5,
          byType: {},
        },
        floorThreeActivities: {
          runs: 50,
          events: { typical: 23, min: 23, max: 23 },
          workflowTasks: 4,
          byType: {},
        },
      },
    } as unknown as DrainResult);
    assert.match(table, /\| onceflow order \| 50 \| 26 \(26–30\) \| 4 \|/);
    assert.match(table, /\| onceflow payout \| 20 \| 31 \| 5 \|/);
    assert.match(table, /\| floor: 3 no-op activities \| 50 \| 23 \| 4 \|/);
    // bridge | worker | temporal | kafka | postgres | providers | bench | total
    assert.match(
      table,
      /\| onceflow drain \(orders\) \| 10 \| 100 \| 1 \| 2 \| 10\.5 \| 3\.1 \| 3 \| – \| – \| 19\.6 \|/,
    );
  });
});
