import { strict as assert } from 'node:assert';
import { parseChaosArgs } from '../../../../harness/chaos/args';
import { buildScenario } from '../../../../harness/pipeline/scenario';

describe('chaos arguments: --tenants', () => {
  it('spreads the orders over N merchants in turn, and none by default', () => {
    assert.equal(parseChaosArgs(['--orders', '10', '--seed', '3']).tenants, 0);
    const args = parseChaosArgs(['--orders', '10', '--seed', '3', '--tenants', '2']);
    assert.equal(args.tenants, 2);
    assert.throws(() => parseChaosArgs(['--tenants', '0']), /--tenants must be a positive integer/);
    const { stream } = buildScenario(10, 3, { merchantId: (i) => `tenant-${i % 2}` });
    const merchants = [...stream.orders.values()].map(
      (o) => (o as { merchantId?: string }).merchantId,
    );
    assert.deepEqual(new Set(merchants), new Set(['tenant-0', 'tenant-1']));
    const plain = buildScenario(10, 3);
    assert.ok([...plain.stream.orders.values()].every((o) => !('merchantId' in o)));
  });
});
