import { strict as assert } from 'node:assert';
import { javaMajorOf } from '../../../../harness/stack/java';
import {
  registryApiUrl,
  registryMode,
  registryWanted,
} from '../../../../harness/stack/schema-registry';
import { StackSettingError } from '../../../../harness/stack/topology';

describe('stack: the schema registry and its Java', () => {
  it('reads the major version of every `java -version` style', () => {
    assert.equal(javaMajorOf('openjdk version "17.0.15" 2025-04-15'), 17);
    assert.equal(javaMajorOf('openjdk version "25" 2025-09-16'), 25);
    assert.equal(javaMajorOf('java version "1.8.0_402"'), 8);
    assert.equal(javaMajorOf('no java here'), undefined);
  });

  it('runs unless ONCEFLOW_SCHEMA_REGISTRY=off (auto by default); anything else is a setting error', () => {
    assert.equal(registryMode({}), 'auto');
    assert.equal(registryWanted({}), true);
    assert.equal(registryMode({ ONCEFLOW_SCHEMA_REGISTRY: 'on' }), 'on');
    assert.equal(registryWanted({ ONCEFLOW_SCHEMA_REGISTRY: 'OFF' }), false);
    assert.throws(() => registryWanted({ ONCEFLOW_SCHEMA_REGISTRY: 'maybe' }), StackSettingError);
  });

  it("names Apicurio's Confluent-compatible API as SCHEMA_REGISTRY_URL", () => {
    assert.equal(registryApiUrl(8081), 'http://127.0.0.1:8081/apis/ccompat/v7');
  });
});
