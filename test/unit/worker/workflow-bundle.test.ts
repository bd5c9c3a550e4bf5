import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMAINS } from '../../../src/domains';
import { prepareWorkflowBundle } from '../../../src/worker/workflow-bundle';

describe('the worker workflow bundle, built outside the worker', function () {
  this.timeout(120_000);
  let cacheDir: string;
  before(() => {
    cacheDir = mkdtempSync(join(tmpdir(), 'bundle-test-'));
  });
  after(() => rmSync(cacheDir, { recursive: true, force: true }));

  it('builds every workflow in a child process and reuses the cached file', async () => {
    const first = await prepareWorkflowBundle({ cacheDir, domains: DOMAINS });
    assert.ok(first.codePath.startsWith(cacheDir), first.codePath);
    const code = readFileSync(first.codePath, 'utf8');
    for (const workflow of ['orderFulfillment', 'orderCancellation'])
      assert.match(code, new RegExp(workflow), `bundle lacks ${workflow}`);
    const built = statSync(first.codePath).mtimeMs;
    const second = await prepareWorkflowBundle({ cacheDir, domains: DOMAINS });
    assert.equal(second.codePath, first.codePath);
    assert.equal(statSync(second.codePath).mtimeMs, built, 'a cached bundle was rebuilt');
  });
});
