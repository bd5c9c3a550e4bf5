/**
 * The program of docs/first-domain.md, by file: each ```ts block whose first line is
 * `// <file>.ts: …` is that file. The package test runs it; README's first screen shows it
 * and a unit test keeps the two copies the same.
 */
export function programOf(markdown: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [, code] of markdown.matchAll(/```ts\n([\s\S]*?)```/g)) {
    const name = /^\/\/ ([\w.-]+\.ts):/.exec(code!)?.[1];
    if (name) files[name] = code!;
  }
  return files;
}
