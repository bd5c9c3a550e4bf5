import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(__dirname, '../../../src');

/** Every .ts file under src, as paths relative to src. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [relative(SRC, join(dir, e.name))]
        : [],
  );
}

/** The src files a file imports or re-exports from (types included: a cycle is a cycle). */
export function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const [, spec] of text.matchAll(/(?:import|export)[^'";]*?from\s+'(\.[^']+)'/g)) {
    const base = resolve(SRC, dirname(file), spec!);
    const target = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (target) out.push(relative(SRC, target));
  }
  return out;
}

/** One cycle per strongly connected component of more than one file (Tarjan). */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe('src has no import cycles', () => {
  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    assert.deepEqual(cyclesOf(graph), [['a.ts', 'b.ts', 'c.ts']]);
  });

  it('no file of src imports itself through others (the bridge step and its helpers included)', () => {
    const files = sourceFiles();
    const graph = new Map(
      files.map((f) => [f, importsOf(f, readFileSync(join(SRC, f), 'utf8'))] as const),
    );
    assert.deepEqual(cyclesOf(graph), []);
  });
});
