import { strict as assert } from 'node:assert';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, tsFilesUnder } from './source-graph';

/**
 * Test folders that name a guarantee spanning the tree rather than a folder of it (and the test
 * runner's, the structure's and the Temporal emulator's own tests). docs/architecture.md,
 * "Tests".
 */
export const CROSS_CUTTING = ['privacy', 'package', 'runner', 'structure', 'emulator'];

/** Whether a test folder (relative to test/unit or test/integration) mirrors code. */
export function mirrorsCode(folder: string, isDir: (path: string) => boolean): boolean {
  if (folder === '.') return true;
  if (CROSS_CUTTING.includes(folder.split('/')[0]!)) return true;
  // Data a test reads (fixtures/) sits beside the tests that read it.
  if (folder.split('/').includes('fixtures')) return mirrorsCode(dirname(folder), isDir);
  if (folder.startsWith('harness/')) return isDir(folder);
  return isDir(join('src', folder)) || isDir(folder);
}

const isDir = (p: string) => existsSync(join(ROOT, p)) && statSync(join(ROOT, p)).isDirectory();

describe('tests mirror the source tree', () => {
  it('tells a mirroring folder from one that names no code', () => {
    assert.equal(mirrorsCode('kafka-bridge', isDir), true);
    assert.equal(mirrorsCode('domains/orders/workflows', isDir), true);
    assert.equal(mirrorsCode('harness/chaos', isDir), true);
    assert.equal(mirrorsCode('bridge', isDir), false);
    assert.equal(mirrorsCode('harness/kafka-bridge', isDir), false);
    assert.equal(mirrorsCode('ops/fixtures', isDir), true);
    assert.equal(mirrorsCode('bridge/fixtures', isDir), false);
  });

  for (const kind of ['unit', 'integration']) {
    it(`every folder of test/${kind} is a folder of src/ or harness/ (or a cross-cutting guarantee)`, () => {
      const base = join('test', kind);
      const folders = new Set(tsFilesUnder(base).map((f) => dirname(f.slice(base.length + 1))));
      assert.deepEqual([...folders].filter((d) => !mirrorsCode(d, isDir)).sort(), []);
    });
  }
});
