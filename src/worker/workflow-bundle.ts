import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';

/** Where bundles are cached; one file per content hash, so stale bundles are never reused. */
const DEFAULT_CACHE_DIR = join(tmpdir(), 'onceflow-workflow-bundles');

const SRC = resolve(__dirname, '..');

/** Every source file under src/ (the bundle's inputs are a subset) plus the SDK's version. */
function hashSources(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|js|json)$/.test(entry.name)) hash.update(path).update(readFileSync(path));
    }
  };
  walk(SRC);
  const sdk = require.resolve('@temporalio/workflow/package.json');
  hash.update(readFileSync(sdk));
  return hash.digest('hex').slice(0, 24);
}

/**
 * The worker's workflow bundle, built by a child process and cached by content hash. Bundling
 * with webpack inside the worker left its peak RSS about 200 MiB higher for the worker's whole
 * life (issue 18); the child exits and takes that memory with it. Two workers starting at once
 * may both build it; each writes a temporary file and renames it, so neither reads half a file.
 */
export async function prepareWorkflowBundle(
  options: {
    /** Folder for cached bundles; default `<tmpdir>/onceflow-workflow-bundles`. */
    cacheDir?: string;
    /** Bundle the OpenTelemetry workflow interceptors too (ONCEFLOW_TRACING=on). Default: false. */
    tracing?: boolean;
  } = {},
): Promise<{ codePath: string }> {
  const cacheDir = options.cacheDir ?? DEFAULT_CACHE_DIR;
  const traced = options.tracing ? '-traced' : '';
  const codePath = join(cacheDir, `workflows-${hashSources()}${traced}.js`);
  if (existsSync(codePath)) return { codePath };
  mkdirSync(cacheDir, { recursive: true });
  // Same runtime and loader flags as this process (tsx in development, none for compiled JS).
  const script = join(__dirname, `bundle-workflows${extname(__filename)}`);
  await new Promise<void>((done, fail) => {
    const args = [...process.execArgv, script, codePath, ...(traced ? ['--tracing'] : [])];
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      if (code === 0) done();
      else fail(new Error(`bundling workflows failed (${signal ?? `exit ${code}`}): ${stderr}`));
    });
  });
  return { codePath };
}
