import { spawn, type SpawnOptions } from 'node:child_process';

export class CommandError extends Error {
  override readonly name = 'CommandError';
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly output: string,
  ) {
    super(`${command} exited with ${exitCode}:\n${output.slice(-4000)}`);
  }
}

/** Runs a command to completion and returns its combined output; throws CommandError on failure. */
export function runCommand(
  command: string,
  args: string[],
  options: SpawnOptions = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) =>
      reject(new CommandError(`${command} ${args.join(' ')}`, null, err.message)),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new CommandError(`${command} ${args.join(' ')}`, code, output));
    });
  });
}

/** True when `command` is on PATH. */
export async function hasCommand(command: string): Promise<boolean> {
  try {
    await runCommand('sh', ['-c', `command -v ${command}`]);
    return true;
  } catch {
    return false;
  }
}
