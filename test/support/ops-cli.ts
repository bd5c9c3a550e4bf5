import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** What one CLI run produced. */
export interface OpsRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A CLI run in progress: its process (a test may kill it mid-way) and what it produced. */
export interface StartedOps {
  child: ChildProcess;
  done: Promise<OpsRun>;
}

/**
 * Starts the ops CLI as an operator would, in a child process (`node --import tsx
 * src/ops/main.ts …`), with the test's env on top of the runner's (which names the stack).
 */
export function startOps(args: string[], env: Record<string, string> = {}): StartedOps {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/ops/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const done = new Promise<OpsRun>((resolveRun, fail) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolveRun({ code, stdout, stderr, json });
    });
  });
  return { child, done };
}

/** Runs the ops CLI to its end (see startOps). */
export function runOps(args: string[], env: Record<string, string> = {}): Promise<OpsRun> {
  return startOps(args, env).done;
}

/** What the provider gate does with charge requests. */
export type GateMode = 'pass' | 'reject-charges' | 'hold-charges';

/** A switchable stand-in in front of the sandbox providers (see startProviderGate). */
export interface ProviderGate {
  url: string;
  mode: GateMode;
  close(): Promise<void>;
}

/**
 * An HTTP gate between a worker and the sandbox providers: `pass` forwards everything;
 * `reject-charges` answers POST /v1/charges with 400 (a permanent cause: the order parks at
 * charge at once, with or without transient retry windows); `hold-charges` never answers
 * them (the client times out: a transient cause, the activity keeps retrying). Every other
 * request is forwarded, so reserve and email work.
 */
export async function startProviderGate(target: string): Promise<ProviderGate> {
  const held = new Set<ServerResponse>();
  const gate: ProviderGate = {
    url: '',
    mode: 'pass',
    close: () =>
      new Promise<void>((done) => {
        for (const res of held) res.destroy();
        server.close(() => done());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const isCharge = req.method === 'POST' && req.url === '/v1/charges';
      if (isCharge && gate.mode === 'reject-charges') {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'invalid_request', message: 'rejected by the test gate' }));
        return;
      }
      if (isCharge && gate.mode === 'hold-charges') {
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
      }
      fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
      })
        .then(async (upstream) => {
          const body = Buffer.from(await upstream.arrayBuffer());
          const out: Record<string, string> = {};
          upstream.headers.forEach((v, k) => {
            if (k !== 'content-length' && k !== 'transfer-encoding') out[k] = v;
          });
          res.writeHead(upstream.status, out);
          res.end(body);
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  gate.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return gate;
}
