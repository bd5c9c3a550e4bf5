import { strict as assert } from 'node:assert';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';

const ROOT = resolve(__dirname, '..', '..');

async function lintAs(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: resolve(ROOT, filePath) });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('lint rules', () => {
  it('forbids Node built-ins and I/O clients in workflow code', async () => {
    const messages = await lintAs(
      'src/workflows/smoke-check.ts',
      "import { readFileSync } from 'node:fs';\nimport pg from 'pg';\nexport const x = [readFileSync, pg];\n",
    );
    assert.equal(
      messages.filter((m) => m.startsWith('no-restricted-imports')).length,
      2,
      messages.join('\n'),
    );
  });

  it('allows the same imports outside workflow code', async () => {
    const messages = await lintAs(
      'src/activities/system.ts',
      "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
    );
    assert.deepEqual(messages, []);
  });

  it('reports floating promises', async () => {
    const messages = await lintAs(
      'src/activities/system.ts',
      'async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n',
    );
    assert.ok(
      messages.some((m) => m.startsWith('@typescript-eslint/no-floating-promises')),
      messages.join('\n'),
    );
  });
});
