import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository's root. */
export const ROOT = resolve(__dirname, '../../..');

/** Every .ts file under a folder of the repository, as paths relative to the root. */
export function tsFilesUnder(folder: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.name === 'node_modules'
        ? []
        : e.isDirectory()
          ? walk(join(dir, e.name))
          : e.name.endsWith('.ts')
            ? [relative(ROOT, join(dir, e.name))]
            : [],
    );
  return walk(join(ROOT, folder));
}

const SPECIFIER =
  /(?:\bimport|\bexport)[^'";]*?\bfrom\s+'(\.[^']*)'|\bimport\s+'(\.[^']*)'|\b(?:import|require)\(\s*'(\.[^']*)'\s*\)/g;

/**
 * The files (root-relative) a file's relative imports name: static imports and re-exports, type
 * imports included, side-effect imports, `import()` and `require()`. A specifier that names
 * no file (a package's internals patched at runtime) is left out.
 */
export function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const base = resolve(ROOT, dirname(file), (m[1] ?? m[2] ?? m[3])!);
    const target = [base, `${base}.ts`, join(base, 'index.ts')].find(
      (p) => existsSync(p) && statSync(p).isFile(),
    );
    if (target) out.push(relative(ROOT, target));
  }
  return out;
}

/** Every import edge out of the files under a folder: [importer, imported], root-relative. */
export function importEdges(folder: string): Array<[string, string]> {
  return tsFilesUnder(folder).flatMap((f) =>
    importsOf(f, readFileSync(join(ROOT, f), 'utf8')).map((t) => [f, t] as [string, string]),
  );
}
