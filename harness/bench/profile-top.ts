/**
 * `npx tsx harness/bench/profile-top.ts <file.cpuprofile> [N]`: the N (default 25) functions with the
 * most self time in a V8 CPU profile (--cpu-prof), with their share of the profile's samples,
 * and the share of each package (node_modules/<name>, node: internals, onceflow's own code),
 * for where a process's time goes without opening DevTools.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

/** `kafkajs`, `@temporalio/client`, `node:internal`, `onceflow` or `(vm)` for a frame's url. */
export function packageOf(url: string): string {
  if (url === '') return '(vm)';
  if (url.startsWith('node:')) return 'node:internal';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  return 'onceflow';
}

/** Self samples per function (name, file, line) and per package, largest first. */
export function topFrames(profile: Profile, n = 25) {
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  // Shares of the time the process was busy: an idle bridge waits on round trips, which a
  // profile of its CPU cannot split; the idle share is reported on its own.
  const idleIds = new Set(
    profile.nodes.filter((x) => x.callFrame.functionName === '(idle)').map((x) => x.id),
  );
  const idle = profile.samples.filter((id) => idleIds.has(id)).length;
  const total = profile.samples.length - idle || 1;
  const byFrame = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const node of profile.nodes) {
    const h = hits.get(node.id) ?? node.hitCount ?? 0;
    if (h === 0 || idleIds.has(node.id)) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(src|dist)\//, '$1/');
    const key = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + h);
    byPackage.set(packageOf(url), (byPackage.get(packageOf(url)) ?? 0) + h);
  }
  const pct = (h: number) => Number(((h * 100) / total).toFixed(1));
  const sorted = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).map(([name, h]) => ({ name, percent: pct(h) }));
  return {
    samples: profile.samples.length,
    idlePercent: Number(((idle * 100) / (profile.samples.length || 1)).toFixed(1)),
    frames: sorted(byFrame).slice(0, n),
    packages: sorted(byPackage).filter((p) => p.percent > 0),
  };
}

function main(): void {
  const [file, n] = process.argv.slice(2);
  if (!file) throw new Error('usage: npx tsx harness/bench/profile-top.ts <file.cpuprofile> [N]');
  const top = topFrames(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(n ?? 25));
  process.stdout.write(
    `${top.samples} samples, ${top.idlePercent} % idle; shares below are of the busy time\n\nby package (self time):\n`,
  );
  for (const p of top.packages)
    process.stdout.write(`  ${String(p.percent).padStart(5)} %  ${p.name}\n`);
  process.stdout.write('\ntop functions (self time):\n');
  for (const f of top.frames)
    process.stdout.write(`  ${String(f.percent).padStart(5)} %  ${f.name}\n`);
}

if (require.main === module) main();
