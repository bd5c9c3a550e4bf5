import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildIdOf } from '../../../src/db/workflow-build-store';
import { DOMAINS } from '../../../src/domains';
import { BundleFolderError, whyNotPrivate } from '../../../src/worker/bundle-folder';
import { prepareWorkflowBundle, workflowEntry } from '../../../src/worker/workflow-bundle';

const ROOT = resolve(__dirname, '..', '..', '..');
const run = promisify(execFile);

describe('the worker workflow bundle, built outside the worker', function () {
  this.timeout(120_000);
  let base: string;
  let cacheDir: string;
  before(() => {
    base = mkdtempSync(join(tmpdir(), 'bundle-test-'));
    cacheDir = join(base, 'cache');
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  /**
   * The build ID a worker process computes with TMPDIR set to `temp` (a temp folder of its
   * own), bundling into its default folder, and what it said on stderr.
   */
  async function buildIdUnder(temp: string): Promise<{ buildId: string; stderr: string }> {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test/support/print-build-id.ts')],
      { cwd: ROOT, env: { ...process.env, TMPDIR: temp } },
    );
    return { buildId: stdout.trim(), stderr };
  }

  /** Other code under the names this worker's entry and bundle have, in `folder`. */
  function plant(folder: string, names: { entry: string; bundle: string }): void {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, names.entry), 'module.exports = { planted: 1 };\n');
    writeFileSync(join(folder, names.bundle), 'globalThis.planted = "someone else\'s code";\n');
  }

  it('builds every workflow in a child process and reuses the cached file', async () => {
    const first = await prepareWorkflowBundle({ cacheDir, domains: DOMAINS });
    assert.ok(first.codePath.startsWith(cacheDir), first.codePath);
    assert.equal(statSync(cacheDir).mode & 0o777, 0o700, 'a folder of this user alone');
    const code = readFileSync(first.codePath, 'utf8');
    for (const workflow of ['orderFulfillment', 'orderCancellation'])
      assert.match(code, new RegExp(workflow), `bundle lacks ${workflow}`);
    const built = statSync(first.codePath).mtimeMs;
    const second = await prepareWorkflowBundle({ cacheDir, domains: DOMAINS });
    assert.equal(second.codePath, first.codePath);
    assert.equal(statSync(second.codePath).mtimeMs, built, 'a cached bundle was rebuilt');
  });

  it("never takes a bundle planted in the shared temp folder for this worker's code", async () => {
    // This worker's own code and build ID, and the names its files take.
    const own = await prepareWorkflowBundle({ cacheDir, domains: DOMAINS });
    const ownId = buildIdOf(readFileSync(own.codePath, 'utf8'));
    const names = {
      entry: basename(workflowEntry(DOMAINS, cacheDir)),
      bundle: basename(own.codePath),
    };
    const uid = process.getuid!();

    // Planted where workers looked before, and in the folder they use now, made and opened
    // to everyone by someone else first.
    const temp = mkdtempSync(join(base, 'tmp-'));
    plant(join(temp, 'onceflow-workflow-bundles'), names);
    const opened = join(temp, `onceflow-workflow-bundles-${uid}`);
    plant(opened, names);
    chmodSync(opened, 0o777);
    const built = await buildIdUnder(temp);
    assert.equal(built.buildId, ownId, 'its own code');
    assert.match(built.stderr, /bundles-\d+ is writable by others \(mode 0777\)/);
    const mine = readdirSync(temp).filter((f) => /^onceflow-workflow-bundles-own-/.test(f));
    assert.equal(mine.length, 1, 'a folder of its own instead');
    assert.equal(statSync(join(temp, mine[0]!)).mode & 0o777, 0o700);

    // The folder's name taken by a link to someone else's folder.
    const linked = mkdtempSync(join(base, 'tmp-'));
    const theirs = join(linked, 'theirs');
    plant(theirs, names);
    symlinkSync(theirs, join(linked, `onceflow-workflow-bundles-${uid}`));
    const viaLink = await buildIdUnder(linked);
    assert.equal(viaLink.buildId, ownId, 'its own code');
    assert.match(viaLink.stderr, /is a symbolic link/);
  });

  it('refuses a folder another user owns or may write, naming why', () => {
    const folder = mkdtempSync(join(base, 'given-'));
    const uid = process.getuid!();
    assert.equal(whyNotPrivate(lstatSync(folder), uid), undefined);
    assert.equal(
      whyNotPrivate(lstatSync(folder), uid + 1),
      `is owned by user ${uid}, not by this process's ${uid + 1}`,
    );
    chmodSync(folder, 0o775);
    assert.throws(
      () => workflowEntry(DOMAINS, folder),
      (err: unknown) =>
        err instanceof BundleFolderError &&
        err.folder === folder &&
        /is writable by others \(mode 0775\)/.test(err.message),
    );
  });
});
