import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { uniqueName } from '../support/services';

const ROOT = resolve(__dirname, '..', '..');

/** Runs the README's demo command to its end and returns exit code and output. */
function runDemo(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn('bash', [resolve(ROOT, 'scripts/demo.sh'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => done({ code, output }));
  });
}

describe('the README demo command (scripts/demo.sh)', () => {
  it('runs the whole pipeline, holds every invariant and ends with the Web UI address', async () => {
    // Its own topic, group, task queue and schemas, so it shares nothing with other tests.
    const { code, output } = await runDemo(['--orders', '40', '--seed', '7'], {
      KAFKA_TOPICS: uniqueName('demo_orders'),
      KAFKA_GROUP_ID: uniqueName('demo_bridge'),
      TEMPORAL_TASK_QUEUE: uniqueName('demo_tq'),
      DATABASE_SCHEMA: uniqueName('demo'),
      PROVIDERS_DB_SCHEMA: uniqueName('demo_sandbox'),
    });
    assert.equal(code, 0, output);
    assert.match(output, /orders {15}40, cancellations \d+/);
    assert.match(output, /invariants {11}all hold/);
    assert.match(output, /DLQ by reason/);
    const lines = output.trim().split('\n');
    assert.match(lines.at(-1)!, /^Temporal Web UI: http:\/\/127\.0\.0\.1:\d+$/);
  });
});
