import { join, resolve } from 'node:path';
import type { StackPaths } from './paths';
import { REPO_ROOT } from './paths';
import { spawnService } from './processes';
import { waitFor } from '../../src/util/wait';

/** Where the stack's codec server listens and which Web UI may call it. */
export interface CodecServiceOptions {
  port: number;
  uiUrl: string;
  keyFile: string;
}

/**
 * Starts `src/codec-server/main.ts` for the dev server's Web UI: loopback only, CORS for the
 * UI's origin, no token (the dev server's UI has no login to forward one), the stack's key.
 */
export function startCodecService(paths: StackPaths, options: CodecServiceOptions): number {
  return spawnService({
    name: 'codec',
    command: process.execPath,
    args: ['--import', 'tsx', resolve(REPO_ROOT, 'src', 'codec-server', 'main.ts')],
    cwd: REPO_ROOT,
    logFile: join(paths.logs, 'codec.log'),
    env: {
      ...process.env,
      ONCEFLOW_ENCRYPTION_KEY_FILE: options.keyFile,
      CODEC_SERVER_HOST: '127.0.0.1',
      CODEC_SERVER_PORT: String(options.port),
      CODEC_SERVER_AUTH: 'none',
      CODEC_SERVER_CORS_ORIGIN: new URL(options.uiUrl).origin,
      TEMPORAL_UI_URL: options.uiUrl,
    },
  });
}

/** Waits until the codec server answers an empty decode. */
export async function waitForCodec(port: number, timeoutMs: number): Promise<void> {
  await waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/decode`, {
        method: 'POST',
        body: '{"payloads":[]}',
      });
      return res.status === 200;
    },
    { timeoutMs, intervalMs: 300, what: `codec server on 127.0.0.1:${port}` },
  );
}
