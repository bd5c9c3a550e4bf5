import { strict as assert } from 'node:assert';
import {
  checkSchemaName,
  InvalidSchemaNameError,
  qualifyTable,
  quoteSchema,
} from '../../../src/config/schema-name';
import { ConfigError, loadConfig } from '../../../src/config';

describe('schema names', () => {
  it('quotes and qualifies lower-case identifiers', () => {
    assert.equal(checkSchemaName('ledger_1'), 'ledger_1');
    assert.equal(quoteSchema('sandbox'), '"sandbox"');
    assert.equal(qualifyTable('_t9', 'processed_events'), '"_t9".processed_events');
  });

  for (const bad of ['', 'Public', '9lives', 'a-b', 'a b', 'x"; DROP TABLE y; --', 'é'])
    it(`refuses ${JSON.stringify(bad)} before it reaches SQL`, () => {
      assert.throws(
        () => qualifyTable(bad, 'processed_events'),
        (err: unknown) => err instanceof InvalidSchemaNameError && err.schema === bad,
      );
    });

  it('is the rule config applies to DATABASE_SCHEMA and PROVIDERS_DB_SCHEMA', () => {
    assert.throws(
      () => loadConfig({ DATABASE_SCHEMA: 'Bad', PROVIDERS_DB_SCHEMA: 'x-y' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.map((p) => `${p.setting}: ${p.message}`).join('\n') ===
          'DATABASE_SCHEMA: must be a lower-case SQL identifier\n' +
            'PROVIDERS_DB_SCHEMA: must be a lower-case SQL identifier',
    );
  });
});
