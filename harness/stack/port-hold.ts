import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** A port kept bound while its service is down; release() frees it for the service. */
export interface PortHold {
  port: number;
  release(): Promise<void>;
}

// Binds without listening (Node cannot): a connection is refused, exactly as by a dead
// service, while no other program can bind the port (no SO_REUSEADDR, so not even the JVM's
// or libuv's listen, which set it). Held until its stdin closes: when released, or when the
// process that holds it exits, however it exits.
const HOLDER = [
  'import socket, sys',
  's = socket.socket()',
  "s.bind(('127.0.0.1', int(sys.argv[1])))",
  "print('held', flush=True)",
  'sys.stdin.read()',
].join('\n');

/**
 * Keeps 127.0.0.1:port bound while our service is down for a restart, so that nothing else on
 * the machine takes it meanwhile: on a shared machine another stack's start picks a default
 * port when it is free (pickPort), and a killed broker's port is then another cluster's, which
 * our clients would reach and our broker could not bind again. Connections are refused, as a
 * dead port refuses them (a client then tries its next broker at once). Resolves undefined
 * when the port is taken already.
 */
export async function holdPort(port: number): Promise<PortHold | undefined> {
  const child = spawn('python3', ['-c', HOLDER, String(port)], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = once(child, 'exit');
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const held = await Promise.race([
    once(child.stdout, 'data').then(() => out.startsWith('held')),
    exited.then(() => false),
  ]);
  if (!held) {
    child.kill('SIGKILL');
    return undefined;
  }
  return {
    port,
    release: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        await exited;
      }
    },
  };
}
