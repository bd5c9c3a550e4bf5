import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/**
 * The packages a fresh Node process has loaded after requiring `modules` (through tsx, as the
 * tests run the sources), by name: which heavy ones a process pays for without using them.
 */
function loadedPackages(modules: string[], env: NodeJS.ProcessEnv = {}): Set<string> {
  const script = `
    for (const m of ${JSON.stringify(modules)}) require(m);
    const names = Object.keys(require.cache)
      .map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1])
      .filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names)]));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return new Set(JSON.parse(r.stdout) as string[]);
}

describe('what a bridge process loads', () => {
  it('neither the worker SDK nor the OpenTelemetry SDK: the public API loads the worker on first call', function () {
    this.timeout(60_000);
    const bridge = loadedPackages([
      resolve(ROOT, 'src/kafka-bridge/run-bridge.ts'),
      resolve(ROOT, 'src/domains/index.ts'), // its domains import the public API
    ]);
    assert.ok(bridge.has('@temporalio/client'), 'the probe sees what is loaded');
    for (const heavy of [
      '@temporalio/worker',
      '@temporalio/interceptors-opentelemetry',
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/exporter-trace-otlp-http',
    ]) {
      assert.ok(!bridge.has(heavy), `a bridge loads ${heavy}`);
    }
    // The public API's worker entry points still reach the worker.
    const worker = loadedPackages([resolve(ROOT, 'src/worker/run-worker.ts')]);
    assert.ok(worker.has('@temporalio/worker'));
  });
});
