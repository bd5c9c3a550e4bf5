import { strict as assert } from 'node:assert';
import { classifyError } from '../../../src/kafka-bridge/classify-error';
import { adviseFault } from '../../../src/kafka-bridge/fault-advice';
import { DependencyCallError } from '../../../src/kafka-bridge/dependency-call';
import { SchemaRegistryError } from '../../../src/kafka/registry-decoder';

const URL = 'http://registry.internal:8080/apis/ccompat/v7';

/** What the client library throws: an answer (status) or a failed request (a network code). */
const answered = (status: number) =>
  new SchemaRegistryError(URL, 7, status, Object.assign(new Error(`status ${status}`), { status }));
const unreachable = () =>
  new SchemaRegistryError(
    URL,
    7,
    undefined,
    Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
  );

describe('classifyError: the Schema Registry is the environment', () => {
  const table: Array<[string, unknown, string, string | undefined]> = [
    ['unreachable (ECONNREFUSED)', unreachable(), 'transient', 'unavailable'],
    ['an unknown schema ID (404) while it answers', answered(404), 'transient', 'schema-unknown'],
    ['refused credentials (401)', answered(401), 'transient', 'authentication'],
    ['no permission (403)', answered(403), 'transient', 'permission'],
    ['failing (503)', answered(503), 'transient', 'unavailable'],
    ['throttling (429)', answered(429), 'transient', 'unavailable'],
    ['an answer nothing names (400)', answered(400), 'unknown', undefined],
  ];
  for (const [name, err, kind, fault] of table) {
    it(`${name} → ${kind}${fault ? ` (${fault})` : ''}`, () => {
      const c = classifyError(new DependencyCallError('registry', err, URL));
      assert.deepEqual([c.kind, c.fault], [kind, fault]);
    });
  }

  it('the log line names the registry and the fix', () => {
    const err = new DependencyCallError('registry', answered(404), URL);
    const line = adviseFault({
      dependency: 'registry',
      err,
      classification: classifyError(err),
      context: { ledgerSchema: 'public', temporalNamespace: 'default', registryUrl: URL },
    });
    assert.match(line, new RegExp(`registry at ${URL} does not know this schema ID`));
    assert.match(line, /SCHEMA_REGISTRY_URL/);
  });
});
