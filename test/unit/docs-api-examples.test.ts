import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { programOf } from '../support/first-domain-program';

const ROOT = resolve(__dirname, '../..');

/**
 * docs/api.md's example files (each ```ts block whose first line is `// <file>.ts: …`)
 * type-check against the package as a team imports it (`onceflow`, `onceflow/workflow`), so
 * an example cannot drift from the API it documents.
 */
describe('docs/api.md: its example files compile against the package', () => {
  it('finds them and type-checks them strictly', function () {
    this.timeout(120_000);
    const files = programOf(readFileSync(join(ROOT, 'docs/api.md'), 'utf8'));
    assert.ok(Object.keys(files).length >= 1, 'api.md has its example files');
    const dir = mkdtempSync(join(tmpdir(), 'onceflow-api-examples-'));
    try {
      for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
      const program = ts.createProgram(
        Object.keys(files).map((f) => join(dir, f)),
        {
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.Node16,
          moduleResolution: ts.ModuleResolutionKind.Node16,
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
          paths: {
            onceflow: [join(ROOT, 'src/index.ts')],
            'onceflow/workflow': [join(ROOT, 'src/workflow.ts')],
            '@temporalio/*': [join(ROOT, 'node_modules/@temporalio/*')],
          },
        },
      );
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      assert.deepEqual(problems, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
