/**
 * How production runs onceflow's long-lived processes: compiled JavaScript (`npm run build`),
 * with the heap limits in package.json's `start:worker` and `start:bridge` scripts. Those
 * scripts are the one owner of the command lines; docker-compose runs them, and the benches
 * start the same command lines (without npm in between, so the measured pid is the process).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** The processes that have a production start script. */
export type ProductionProcess = 'worker' | 'bridge';

/**
 * The argv after `node` of `npm run start:<process>`: its Node flags, then the compiled entry
 * point as an absolute path. `extraFlags` go first (the bench's `--cpu-prof`).
 */
export function productionArgs(process: ProductionProcess, extraFlags: string[] = []): string[] {
  const scripts = (
    JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const script = scripts[`start:${process}`];
  const words = script?.split(/\s+/) ?? [];
  const entry = words.at(-1);
  if (words[0] !== 'node' || !entry?.endsWith('.js'))
    throw new Error(
      `package.json start:${process} must be "node [flags] <file>.js", got ${script}`,
    );
  return [...extraFlags, ...words.slice(1, -1), resolve(ROOT, entry)];
}

/** `npm run build`: compiles src/ into dist/ so the production command lines run this code. */
export function buildProduction(): void {
  const r = spawnSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status ?? r.signal})`);
}
