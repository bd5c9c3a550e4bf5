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
    const history = (runs: number, typical: number, max: number, workflowTasks: number) => ({
      runs,
      events: { typical, min: typical, max },
      workflowTasks,
      byType: {},
    });
    const sizes = [{ table: 'processed_events', rows: 5, tableMiB: 1.5, indexesMiB: 0.5 }];
    const table = formatDrain({
      orders: 1000,
      prefill: 5,
      drains: [
        {
          ...fig,
          variant: 'product',
          orders: 1000,
          load: { before: 0.5, after: 2.25 },
          peakRssMiB: { worker: 100, bridge: 80 },
          sizes: { before: sizes, after: sizes },
          histories: { order: history(50, 26, 30, 4), payout: history(20, 31, 31, 5) },
        },
        {
          ...fig,
          cpuMsPerItem: { ...fig.cpuMsPerItem, worker: 1, total: 18.6 },
          variant: 'no-versioning',
          orders: 1000,
          peakRssMiB: { worker: 90, bridge: 80 },
          sizes: { before: sizes, after: sizes },
          histories: { order: history(50, 26, 26, 4) },
        },
      ],
      ladder: [
        { ...fig, rung: 'floor', what: 'three no-op activities', history: history(50, 23, 23, 4) },
        {
          ...fig,
          cpuMsPerItem: { ...fig.cpuMsPerItem, total: 21.6 },
          rung: 'claim',
          what: 'claim and settle',
          history: history(50, 25, 25, 4),
        },
      ],
      ratios: { product: 0.9, 'no-versioning': 0.95 },
    } as unknown as DrainResult);
    assert.match(table, /\| onceflow order \| 50 \| 26 \(26–30\) \| 4 \|/);
    assert.match(table, /\| onceflow payout \| 20 \| 31 \| 5 \|/);
    assert.match(table, /\| floor: 3 no-op activities \| 50 \| 23 \| 4 \|/);
    // bridge | worker | temporal | kafka | postgres | providers | bench | total
    assert.match(
      table,
      /\| product \| 0\.5 → 2\.3 \| 10 \| 100 \| 1 \| 2 \| 10\.5 \| 3\.1 \| 3 \| – \| – \| 19\.6 \| {2}\| 0\.9 \| 100 \/ 80 \|/,
    );
    // A variant against the first drain, a rung against the floor.
    assert.match(
      table,
      /\| no-versioning \| – \| 10 \| 100 \| 1 \| 1 \| .* \| 18\.6 \| -1 \| 0\.95 \|/,
    );
    assert.match(table, /\| claim: claim and settle \| .* \| 21\.6 \| \+2 \| 25 \|/);
    assert.match(table, /over 5 prefilled rows/);
    assert.match(table, /\| product \| processed_events \| 5 → 5 \| 1\.5 → 1\.5 \| 0\.5 → 0\.5 \|/);
  });
});
