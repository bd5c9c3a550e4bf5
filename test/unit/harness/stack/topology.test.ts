import { strict as assert } from 'node:assert';
import { readTopology, StackSettingError } from '../../../../harness/stack/topology';

describe('stack topology settings', () => {
  it('defaults to the dev server and one broker when unset or empty', () => {
    assert.deepEqual(readTopology({}), { temporal: 'dev', kafkaBrokers: 1 });
    assert.deepEqual(readTopology({ ONCEFLOW_TEMPORAL: '', ONCEFLOW_KAFKA_BROKERS: '' }), {
      temporal: 'dev',
      kafkaBrokers: 1,
    });
  });

  it('reads the production topology', () => {
    assert.deepEqual(readTopology({ ONCEFLOW_TEMPORAL: 'server', ONCEFLOW_KAFKA_BROKERS: '3' }), {
      temporal: 'server',
      kafkaBrokers: 3,
    });
  });

  for (const [name, value] of [
    ['ONCEFLOW_TEMPORAL', 'cloud'],
    ['ONCEFLOW_KAFKA_BROKERS', '2'],
    ['ONCEFLOW_KAFKA_BROKERS', 'three'],
  ] as const) {
    it(`refuses ${name}=${value}, naming the setting and the values it takes`, () => {
      assert.throws(
        () => readTopology({ [name]: value }),
        (err: unknown) =>
          err instanceof StackSettingError &&
          err.setting === name &&
          err.message.startsWith(`${name}: must be one of `) &&
          err.message.includes(`"${value}"`),
      );
    });
  }
});
