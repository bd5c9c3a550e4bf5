import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** README.md and every page of docs/: the documents a reader follows links through. */
function documents(): string[] {
  const docs = readdirSync(resolve(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => resolve(ROOT, 'docs', f));
  return [resolve(ROOT, 'README.md'), ...docs];
}

/** The text outside fenced code blocks and inline code spans, where a `[x](y)` is a link. */
function proseOf(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, '');
}

/** Relative link targets of a document, as written (`docs/x.md#anchor`, `#anchor`, `../y`). */
export function relativeLinksOf(markdown: string): string[] {
  const links: string[] = [];
  for (const m of proseOf(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    links.push(target);
  }
  return links;
}

/**
 * The anchors GitHub gives a document's headings: lower case, punctuation other than `-` and
 * `_` dropped, spaces as `-`; a repeated heading gets `-1`, `-2`, … (github-slugger's rule).
 */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What is wrong with one link of `from` (undefined: it resolves). */
export function checkLink(from: string, target: string): string | undefined {
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? from : resolve(dirname(from), decodeURIComponent(path));
  if (!existsSync(file)) return `${target}: no file ${relative(ROOT, file)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md'))
    return `${target}: an anchor into a file that is not Markdown`;
  const anchors = anchorsOf(readFileSync(file, 'utf8'));
  return anchors.has(decodeURIComponent(anchor).toLowerCase())
    ? undefined
    : `${target}: ${relative(ROOT, file)} has no heading #${anchor}`;
}

describe('docs: every relative link in README.md and docs/*.md resolves', () => {
  it('anchorsOf follows GitHub: punctuation dropped, spaces as dashes, repeats numbered', () => {
    const anchors = anchorsOf(
      '# The Kafka bridge\n## Cost per order (backlog drain)\n```\n# not a heading\n```\n## Notes\n## Notes\n',
    );
    assert.deepEqual(
      [...anchors],
      ['the-kafka-bridge', 'cost-per-order-backlog-drain', 'notes', 'notes-1'],
    );
  });

  it('relativeLinksOf skips URLs and links quoted in code', () => {
    const links = relativeLinksOf(
      '[a](docs/a.md) [b](https://x.org/b) `[c](c.md)`\n```\n[d](d.md)\n```\n[e](#e "t")',
    );
    assert.deepEqual(links, ['docs/a.md', '#e']);
  });

  it('checkLink names a missing file and a missing anchor', () => {
    const readme = resolve(ROOT, 'README.md');
    assert.match(checkLink(readme, 'docs/no-such-page.md') ?? '', /no file docs\/no-such-page\.md/);
    assert.match(checkLink(readme, '#no-such-heading') ?? '', /has no heading #no-such-heading/);
    assert.equal(checkLink(readme, 'docs/operations.md#the-dlq'), undefined);
  });

  for (const doc of documents())
    it(`${relative(ROOT, doc)}: every link names an existing file and heading`, () => {
      const problems = relativeLinksOf(readFileSync(doc, 'utf8'))
        .map((target) => checkLink(doc, target))
        .filter((p): p is string => p !== undefined);
      assert.deepEqual(problems, []);
    });
});
