import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SEARCH_ATTRIBUTE } from '../../../src/temporal/search-attributes';
import { SEARCH_ATTRIBUTES } from '../../../harness/stack/temporal';

describe('search attributes: registered where they are defined', () => {
  const names = Object.values(SEARCH_ATTRIBUTE).map((key) => key.name);

  it('the local stack registers every defined search attribute', () => {
    assert.deepEqual([...SEARCH_ATTRIBUTES].sort(), [...names].sort());
  });

  it('docker-compose registers the same ones', () => {
    const compose = readFileSync(
      resolve(__dirname, '..', '..', '..', 'docker-compose.yml'),
      'utf8',
    );
    const loop = /for name in ([A-Za-z ]+); do\s+temporal operator search-attribute create/.exec(
      compose,
    );
    assert.ok(loop, 'docker-compose.yml creates the search attributes in one loop');
    assert.deepEqual(loop[1]!.trim().split(/\s+/).sort(), [...names].sort());
  });
});
