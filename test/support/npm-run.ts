import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** `npm run <script> -- <args>` as a user runs it: its exit code, stdout and stderr. */
export function runNpmScript(
  script: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

/** The last `n` lines of a command's output, for an assertion's message. */
export const tailOf = (text: string, n = 40) => text.split('\n').slice(-n).join('\n');
