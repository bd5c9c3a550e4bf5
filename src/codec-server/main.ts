import { ConfigError, redactConfig, type Config } from '../config';
import { loadConfigOrExit } from '../config/load-or-exit';
import { createLogger } from '../logger';
import { EncryptionCodec } from '../temporal/encryption-codec';
import { isLoopbackHost, startCodecServer } from './server';

/**
 * The codec server needs a key ring, and a token unless CODEC_SERVER_AUTH=none says otherwise;
 * `none` only on loopback. Checked here, not in a compose file, so it holds wherever it runs:
 * without authentication the server decrypts any history for anyone who reaches it.
 */
export function checkCodecServerConfig(config: Config): void {
  const problems: Array<{ setting: string; message: string }> = [];
  if (!config.encryption.ring) {
    problems.push({
      setting: 'ONCEFLOW_ENCRYPTION_KEYS',
      message: 'is required: the codec server decrypts with the same key ring',
    });
  }
  if (config.codecServer.auth === 'token' && !config.codecServer.token) {
    problems.push({
      setting: 'CODEC_SERVER_TOKEN',
      message: 'is required (or CODEC_SERVER_AUTH=none, for a loopback dev server only)',
    });
  }
  if (config.codecServer.auth === 'none' && !isLoopbackHost(config.codecServer.host)) {
    problems.push({
      setting: 'CODEC_SERVER_AUTH',
      message:
        `is none but CODEC_SERVER_HOST=${config.codecServer.host} is not a loopback address: ` +
        'anyone who reaches it could decrypt every history; set CODEC_SERVER_TOKEN with ' +
        'CODEC_SERVER_AUTH=token, or bind 127.0.0.1 behind an authenticating proxy',
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/** `npm run codec-server`: the Web UI's remote codec. Stops on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  try {
    checkCodecServerConfig(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  const log = createLogger('codec-server', config.logLevel);
  const { codecServer } = config;
  const server = await startCodecServer({
    // Display only: a payload that is not encrypted is shown as it is (Temporal holds it in
    // clear anyway), so strict mode stays with the processes that act on payloads.
    codecFor: (namespace) => new EncryptionCodec(config.encryption.ring!, { namespace }),
    corsOrigin: codecServer.corsOrigin,
    token: codecServer.auth === 'token' ? codecServer.token : undefined,
    namespace: config.temporal.namespace,
    host: codecServer.host,
    port: codecServer.port,
    onProblem: (p) => log.warn(p, 'codec request refused'),
  });
  log.info(
    {
      url: server.url,
      corsOrigin: codecServer.corsOrigin,
      auth: codecServer.auth,
      keyIds: redactConfig(config).encryption.keyIds,
      settingsFrom: config.origin,
    },
    'codec server listening',
  );
  // For a parent that picked port 0 (the local stack): the one line it waits for.
  process.stdout.write(`codec-server-listening ${server.url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  await server.close();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`codec server failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
