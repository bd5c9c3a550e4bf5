import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tsFilesUnder } from './source-graph';

/** The longest a test file may grow before it is split by behaviour (house style: ~300). */
export const MAX_TEST_LINES = 300;

/** The files over the limit, each with its length. */
export function overLimit(lengths: Map<string, number>, max = MAX_TEST_LINES): string[] {
  return [...lengths].filter(([, n]) => n > max).map(([f, n]) => `${f}: ${n} lines`);
}

describe('test files stay small', () => {
  it('names a file over the limit', () => {
    const lengths = new Map([
      ['test/unit/a.test.ts', 300],
      ['test/unit/b.test.ts', 301],
    ]);
    assert.deepEqual(overLimit(lengths), ['test/unit/b.test.ts: 301 lines']);
  });

  it(`no .ts file under test/ has more than ${MAX_TEST_LINES} lines (split by behaviour)`, () => {
    const lengths = new Map(
      tsFilesUnder('test').map((f) => {
        const text = readFileSync(join(ROOT, f), 'utf8');
        return [f, text.split('\n').length - (text.endsWith('\n') ? 1 : 0)] as const;
      }),
    );
    assert.deepEqual(overLimit(lengths), []);
  });
});
