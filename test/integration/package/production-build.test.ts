import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { buildProduction, productionArgs } from '../../../harness/pipeline/production';

// The production command lines (package.json start:*) run compiled JavaScript: this builds
// dist/ and starts each one with a bad setting. Every module of the entry point is loaded
// before main() runs, so an exit 78 naming the setting proves the compiled graph loads and
// the config check runs, without tsx.
describe('production build (npm run build, npm run start:*)', function () {
  this.timeout(120_000);
  before(() => buildProduction());

  for (const name of ['worker', 'bridge'] as const) {
    it(`start:${name} runs compiled and stops at start on a bad setting, naming it`, () => {
      const r = spawnSync(process.execPath, productionArgs(name), {
        env: { ...process.env, TEMPORAL_ADDRESS: 'not a host:port', LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(r.status, 78, `exit ${r.status}: ${r.stderr}`);
      assert.match(r.stderr, /TEMPORAL_ADDRESS/);
      assert.doesNotMatch(r.stderr, /tsx/);
    });
  }
});
