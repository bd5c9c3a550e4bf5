import { strict as assert } from 'node:assert';
import {
  describeExtraDynamicConfig,
  readExtraDynamicConfig,
} from '../../../../harness/stack/temporal-dynamic-config';

const env = (value: string) => ({ ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG: value });

describe("ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG: dynamic config for the stack's Temporal", () => {
  it('reads key=JSON pairs, comma-separated', () => {
    assert.deepEqual(
      readExtraDynamicConfig(
        env(
          'system.enableActivityEagerExecution=false, matching.numTaskqueueReadPartitions=2,a.b="x"',
        ),
      ),
      {
        'system.enableActivityEagerExecution': false,
        'matching.numTaskqueueReadPartitions': 2,
        'a.b': 'x',
      },
    );
    assert.deepEqual(readExtraDynamicConfig({}), {});
    assert.equal(
      describeExtraDynamicConfig(env('system.enableActivityEagerExecution=false')),
      'system.enableActivityEagerExecution=false',
    );
  });

  it('stops naming the setting on a pair that is not key=JSON', () => {
    assert.throws(
      () => readExtraDynamicConfig(env('noequals')),
      /ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG: "noequals" is not key=value/,
    );
    assert.throws(
      () => readExtraDynamicConfig(env('system.x=off')),
      /ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG: system.x: the value must be JSON/,
    );
  });
});
