import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importEdges, ROOT, tsFilesUnder } from './source-graph';

/*
 * docs/architecture.md owns the layering ("Layers": a list, highest first) and the folder map
 * (its "imports" column); these tests hold src/ to both. An import may only point down.
 */

const DOC = join(ROOT, 'docs', 'architecture.md');

/** The layer list of docs/architecture.md, lowest first: each layer a list of unit patterns. */
export function layersOf(doc: string): string[][] {
  const section = doc.split(/^### Layers$/m)[1];
  const block = section?.match(/```text\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error('docs/architecture.md has no "### Layers" section with a text block');
  return block
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.split(',').map((item) => item.trim().split(/\s+/)[0]!))
    .reverse();
}

/** A file's unit (src-relative path): an entry point, a domain, a top-level file or folder. */
export function unitOf(path: string): string {
  const parts = path.split('/');
  if (parts.at(-1) === 'main.ts') return 'main.ts';
  if (parts.length === 1) return parts[0]!;
  if (parts[0] === 'domains') return `domains/${parts[1]}`;
  return parts[0]!;
}

/** The index of a unit's layer (0 = lowest), or undefined when no layer names it. */
export function rankOf(unit: string, layers: string[][]): number | undefined {
  const i = layers.findIndex((layer) =>
    layer.some(
      (p) =>
        p === unit || (p === 'domains/*' && /^domains\/[^/]+$/.test(unit) && !unit.endsWith('.ts')),
    ),
  );
  return i < 0 ? undefined : i;
}

/** The imports that break the layering; edges are root-relative [importer, imported]. */
export function layerViolations(edges: Array<[string, string]>, layers: string[][]): string[] {
  const out: string[] = [];
  for (const [from, to] of edges) {
    if (!from.startsWith('src/')) continue;
    if (!to.startsWith('src/')) {
      out.push(`${from} -> ${to}: product code imports nothing outside src/ (the harness least)`);
      continue;
    }
    const a = unitOf(from.slice(4));
    const b = unitOf(to.slice(4));
    if (a === b) continue;
    const ra = rankOf(a, layers);
    const rb = rankOf(b, layers);
    if (ra === undefined || rb === undefined) continue; // reported by the "every unit" test
    if (rb >= ra)
      out.push(`${from} -> ${to}: ${a} may not import ${b} (${rb > ra ? 'up' : 'a peer'})`);
  }
  return out;
}

/** The folder (or top-level file) of a src-relative path, as the folder map names it. */
function folderOf(path: string): string {
  return path.split('/')[0]!;
}

/** The folder map's rows of one tree: folder -> the folders its "imports" column lists. */
export function folderMapOf(doc: string, tree: 'src' | 'harness' = 'src'): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const folder = cells[1]?.match(new RegExp(`^\`${tree}/([^\`/]+)\`$`))?.[1];
    if (!folder || cells.length < 5) continue;
    const listed =
      cells[3] === '—' ? [] : cells[3]!.split(',').map((s) => s.trim().split(/[\s(]/)[0]!);
    rows.set(folder, listed.map((s) => s.replace(/`/g, '')).sort());
  }
  return rows;
}

describe('imports point down the layers of docs/architecture.md, and its folder map lists them', () => {
  const doc = readFileSync(DOC, 'utf8');
  const layers = layersOf(doc);
  const edges = importEdges('src');

  it('finds an upward import, a peer import and an import of the harness when there is one', () => {
    const fake = [['util'], ['config'], ['db', 'kafka'], ['ops']];
    assert.deepEqual(
      layerViolations(
        [
          ['src/config/load.ts', 'src/util/wait.ts'],
          ['src/config/load.ts', 'src/db/pool.ts'],
          ['src/db/pool.ts', 'src/kafka/topics.ts'],
          ['src/ops/main.ts', 'src/db/pool.ts'],
          ['src/ops/output.ts', 'harness/sandbox/admin-auth.ts'],
        ],
        fake,
      ),
      [
        'src/config/load.ts -> src/db/pool.ts: config may not import db (up)',
        'src/db/pool.ts -> src/kafka/topics.ts: db may not import kafka (a peer)',
        'src/ops/output.ts -> harness/sandbox/admin-auth.ts: product code imports nothing outside src/ (the harness least)',
      ],
    );
  });

  it('every file of src/ belongs to a layer', () => {
    const missing = [...new Set(tsFilesUnder('src').map((f) => unitOf(f.slice(4))))].filter(
      (u) => rankOf(u, layers) === undefined,
    );
    assert.deepEqual(missing, [], 'add them to "Layers" in docs/architecture.md');
  });

  it('no import of src/ points up, sideways to a peer, or out to the harness', () => {
    assert.deepEqual(layerViolations(edges, layers), []);
  });

  it("the folder map's imports column lists what each product folder imports", () => {
    const imported = new Map<string, Set<string>>();
    for (const f of tsFilesUnder('src')) imported.set(folderOf(f.slice(4)), new Set());
    for (const [from, to] of edges) {
      if (!from.startsWith('src/') || !to.startsWith('src/')) continue;
      const a = folderOf(from.slice(4));
      const b = folderOf(to.slice(4));
      if (a !== b) imported.get(a)!.add(b);
    }
    // One line per folder, so a failure shows which row differs and how.
    const lines = (m: Map<string, string[]>) =>
      [...m].map(([k, v]) => `${k}: ${v.join(', ') || '—'}`).sort();
    assert.deepEqual(
      lines(folderMapOf(doc)),
      lines(new Map([...imported].map(([k, v]) => [k, [...v].sort()]))),
      'docs/architecture.md, "Product: src/": one row per folder, its imports column exact',
    );
  });
  it("the harness table's imports column lists the harness folders each imports", () => {
    const imported = new Map<string, Set<string>>();
    for (const f of tsFilesUnder('harness')) imported.set(f.split('/')[1]!, new Set());
    for (const [from, to] of importEdges('harness')) {
      if (!to.startsWith('harness/')) continue;
      const a = from.split('/')[1]!;
      const b = to.split('/')[1]!;
      if (a !== b) imported.get(a)!.add(b);
    }
    const lines = (m: Map<string, string[]>) =>
      [...m].map(([k, v]) => `${k}: ${v.join(', ') || '—'}`).sort();
    assert.deepEqual(
      lines(folderMapOf(doc, 'harness')),
      lines(new Map([...imported].map(([k, v]) => [k, [...v].sort()]))),
      'docs/architecture.md, "Harness: harness/": one row per folder, its imports column exact',
    );
  });
});
