import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasCommand, runCommand } from './run-command';

/** One Go command the stack builds from the module proxy. */
export interface GoTool {
  /** Module path of the command, e.g. `go.temporal.io/server/cmd/server`. */
  pkg: string;
  /** Pinned module version, without the `v`. */
  version: string;
  /** Name of the installed binary in the stack's bin folder. */
  binary: string;
  /** Build tags (`-tags`). Default: none. */
  tags?: string[];
}

/** Building a Go tool failed, or Go is missing; names the tool and what to do. */
export class GoBuildError extends Error {
  override readonly name = 'GoBuildError';
}

function marker(binDir: string, tool: GoTool): string {
  return join(binDir, `${tool.binary}.version`);
}

/** The path of the installed tool when the cached build is the pinned version. */
export function cachedGoTool(binDir: string, tool: GoTool): string | undefined {
  const bin = join(binDir, tool.binary);
  const file = marker(binDir, tool);
  if (!existsSync(bin) || !existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').split('\n')[0] === tool.version ? bin : undefined;
}

/**
 * `go install <pkg>@v<version>` into the stack's bin folder, cached: a marker names the
 * version, so a second call builds nothing. The build is static (CGO_ENABLED=0) and uses the
 * machine's Go only (GOTOOLCHAIN=local): the module proxy is reachable from CI, toolchain
 * downloads need not be, and a pinned version that wants a newer Go must fail here by name
 * rather than fetch one. `go install` names the binary after its folder (two tools are
 * called `server`), so each builds into its own folder and is renamed.
 */
export async function installGoTool(
  binDir: string,
  tool: GoTool,
  log: (m: string) => void,
): Promise<string> {
  const cached = cachedGoTool(binDir, tool);
  if (cached) return cached;
  if (!(await hasCommand('go'))) {
    throw new GoBuildError(
      `${tool.binary}: building ${tool.pkg}@v${tool.version} needs Go on PATH (the version its go.mod names or newer)`,
    );
  }
  const goVersion = (await runCommand('go', ['env', 'GOVERSION'])).trim();
  const buildDir = join(binDir, `.build-${tool.binary}`);
  rmSync(buildDir, { recursive: true, force: true });
  mkdirSync(buildDir, { recursive: true });
  log(`building ${tool.pkg}@v${tool.version} with ${goVersion} (go install; minutes on first run)`);
  const started = Date.now();
  try {
    await runCommand(
      'go',
      [
        'install',
        ...(tool.tags?.length ? ['-tags', tool.tags.join(',')] : []),
        `${tool.pkg}@v${tool.version}`,
      ],
      { env: { ...process.env, GOBIN: buildDir, CGO_ENABLED: '0', GOTOOLCHAIN: 'local' } },
    );
  } catch (err) {
    throw new GoBuildError(
      `${tool.binary}: go install ${tool.pkg}@v${tool.version} failed with ${goVersion}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const built = join(buildDir, tool.pkg.split('/').at(-1)!);
  const bin = join(binDir, tool.binary);
  renameSync(built, bin);
  rmSync(buildDir, { recursive: true, force: true });
  writeFileSync(marker(binDir, tool), `${tool.version}\nbuilt in ${seconds} s with ${goVersion}\n`);
  log(`built ${tool.binary} ${tool.version} in ${seconds} s`);
  return bin;
}
