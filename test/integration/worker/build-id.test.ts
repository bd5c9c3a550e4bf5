import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { runCommand } from '../../../harness/stack/run-command';

const ROOT = resolve(__dirname, '..', '..', '..');
const run = promisify(execFile);

/**
 * One release is one build wherever it is installed: the same package, installed in two
 * folders of different depth, bundled with different working folders, TMPDIRs and tracing
 * settings, has one build ID (a build whose ID differed by host would be two builds taking
 * turns being current).
 */
describe('the build ID of the same code (two installs of the package)', function () {
  this.timeout(180_000);
  let base: string;
  before(() => {
    base = mkdtempSync(join(tmpdir(), 'onceflow-build-id-'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  /** A copy of the package at `dir`: its sources, and node_modules as hard links (fast). */
  async function install(dir: string): Promise<void> {
    mkdirSync(dir, { recursive: true });
    for (const f of ['package.json', 'tsconfig.json', 'src', 'test/support/print-build-id.ts'])
      cpSync(join(ROOT, f), join(dir, f), { recursive: true });
    await runCommand('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]);
  }

  /** The build ID the copy at `dir` computes, from `cwd`, with its own TMPDIR. */
  async function buildIdIn(dir: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
    const tmp = mkdtempSync(join(base, 'tmp-'));
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', join(dir, 'test/support/print-build-id.ts')],
      { cwd, env: { ...process.env, TMPDIR: tmp, ...env } },
    );
    return stdout.trim();
  }

  it('is the same from two folders, working folders, TMPDIRs and tracing settings', async () => {
    const one = join(base, 'a');
    const two = join(base, 'somewhere', 'much', 'deeper');
    await Promise.all([install(one), install(two)]);
    const [first, second] = await Promise.all([
      buildIdIn(one, one, { ONCEFLOW_TRACING: 'off' }),
      buildIdIn(two, join(two, 'src'), { ONCEFLOW_TRACING: 'on' }),
    ]);
    assert.match(first, /^[0-9a-f]{64}$/, 'the full SHA-256 of the bundle');
    assert.equal(second, first);
  });
});
