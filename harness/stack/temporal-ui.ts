import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSIONS, type StackPaths } from './paths';
import { installGoTool, type GoTool } from './go-install';
import { spawnService } from './processes';
import { waitFor } from '../../src/util/wait';

/**
 * The Web UI server for the real Temporal server. The temporal CLI serves its UI only for
 * its own dev server (`start-dev` has no flag naming another frontend, and no UI-only mode),
 * so the stack builds the UI server the CLI embeds, at the same version, as its own process.
 */
export const UI_SERVER_TOOL: GoTool = {
  pkg: 'github.com/temporalio/ui-server/v2/cmd/server',
  version: VERSIONS.temporalUiServer,
  binary: 'temporal-ui-server',
};

export interface TemporalUiOptions {
  port: number;
  /** The frontend's gRPC address. */
  frontend: string;
  /** The codec server the UI decrypts payloads through (issue 17). */
  codecEndpoint?: string;
}

/** The `--env` name of the config file the stack writes (`<env>.yaml`). */
const UI_ENV = 'onceflow';

export function installTemporalUi(paths: StackPaths, log: (m: string) => void): Promise<string> {
  return installGoTool(paths.bin, UI_SERVER_TOOL, log);
}

/**
 * Writes the UI server's config and starts it. What the dev server's UI has: loopback only,
 * no news fetch, the codec endpoint, and a CSRF cookie without `Secure` (plain HTTP on
 * loopback, where a Secure cookie would never be sent back and every write action fail).
 */
export function startTemporalUi(
  paths: StackPaths,
  bin: string,
  options: TemporalUiOptions,
): number {
  const dir = join(paths.temporalServerConfig, 'ui');
  mkdirSync(dir, { recursive: true });
  const origin = `http://127.0.0.1:${options.port}`;
  // JSON is YAML: the UI server reads it as its config file.
  const config = {
    temporalGrpcAddress: options.frontend,
    host: '127.0.0.1',
    port: options.port,
    enableUi: true,
    defaultNamespace: 'default',
    disableNewsFetch: true,
    hideLogs: true,
    cors: { cookieInsecure: true, allowOrigins: [origin], unsafeAllowAllOrigins: false },
    codec: { endpoint: options.codecEndpoint ?? '' },
  };
  writeFileSync(join(dir, `${UI_ENV}.yaml`), `${JSON.stringify(config, null, 2)}\n`);
  return spawnService({
    name: 'temporal-ui',
    command: bin,
    args: ['--root', dir, '--config', '.', '--env', UI_ENV, 'start'],
    logFile: join(paths.logs, 'temporal-ui.log'),
  });
}

/** Waits until the UI serves its page. */
export async function waitForTemporalUi(port: number, timeoutMs: number): Promise<void> {
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/`)).status === 200, {
    timeoutMs,
    what: `Temporal Web UI on 127.0.0.1:${port}`,
  });
}
