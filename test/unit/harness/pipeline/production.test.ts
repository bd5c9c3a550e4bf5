import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { productionArgs } from '../../../../harness/pipeline/production';

const ROOT = resolve(__dirname, '..', '..', '..', '..');

describe('production command lines (package.json start:*)', () => {
  for (const name of ['worker', 'bridge'] as const) {
    it(`start:${name} runs the compiled entry point of src/ with a heap limit`, () => {
      const args = productionArgs(name);
      const entry = relative(ROOT, args.at(-1)!);
      assert.match(entry, /^dist\/src\/.+\/main\.js$/);
      // dist/ mirrors src/: the compiled file is the one `npm run build` makes of this source.
      const source = entry.replace(/^dist\//, '').replace(/\.js$/, '.ts');
      assert.ok(existsSync(resolve(ROOT, source)), `${source} does not exist`);
      assert.ok(args.some((a) => /^--max-old-space-size=\d+$/.test(a)));
    });
  }

  it('puts the extra flags (the bench profile) before the script flags and the entry', () => {
    const args = productionArgs('bridge', ['--cpu-prof']);
    assert.equal(args[0], '--cpu-prof');
    assert.match(args.at(-1)!, /kafka-bridge\/main\.js$/);
  });

  it('docker-compose runs the worker and the bridge with the same scripts, after a build', () => {
    const compose = readFileSync(resolve(ROOT, 'docker-compose.yml'), 'utf8');
    assert.match(compose, /'npm', 'run', 'start:worker'/);
    assert.match(compose, /'npm', 'run', 'start:bridge'/);
    assert.match(compose, /npm ci && npm run build && npm run setup/);
  });
});
