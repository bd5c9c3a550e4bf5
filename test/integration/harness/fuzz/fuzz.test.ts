import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { FuzzReport } from '../../../../harness/fuzz/run';

const ROOT = resolve(__dirname, '..', '..', '..', '..');

/** Runs `npm run fuzz` as its own process and returns its JSON report and exit code. */
function runFuzzCli(
  args: string[],
): Promise<{ code: number | null; report?: FuzzReport; stderr: string }> {
  return new Promise((done, fail) => {
    // Its own process: the fuzzer's producer replaces KafkaJS's record encoder (to send null
    // header values), which must happen before that process's first produce request.
    const child = spawn(
      process.execPath,
      [resolve(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'harness/fuzz/main.ts', ...args],
      { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      const line = stdout.trim().split('\n').pop();
      let report: FuzzReport | undefined;
      try {
        report = line ? (JSON.parse(line) as FuzzReport) : undefined;
      } catch {
        report = undefined;
      }
      done({ code, report, stderr });
    });
  });
}

/**
 * A short seeded fuzz run (`npm run fuzz -- --messages 2500 --seed 7`): hostile messages of
 * every kind and codec through the real bridge process, a worker and the sandbox providers.
 * Every message must be started, deduplicated or dead-lettered, every partition committed to
 * its end, the bridge never exit or restart its consumer, reconcile clean. The bridge decodes
 * through the stack's schema registry, as in production.
 */
describe('fuzz: hostile messages through the real bridge', function () {
  this.timeout(6 * 60_000);

  it('accounts for every message of a seeded hostile stream without a wedge or a restart', async () => {
    const { code, report, stderr } = await runFuzzCli([
      '--messages',
      '2500',
      '--seed',
      '7',
      // A wedge shows as no progress; the verdict names the partition and message kind.
      '--stall',
      '20s',
      '--deadline',
      '2m',
      '--json',
    ]);
    assert.ok(report, `no JSON report; exit ${code}\n${stderr.slice(-4000)}`);
    assert.ok(report.ok, stderr.slice(-4000));
    assert.equal(code, 0);
    assert.equal(report.drained, 'complete');
    const handled = report.judgement.byKind.reduce(
      (s, k) => s + k.started + k.deduplicated + k.deadLettered,
      0,
    );
    assert.equal(handled, report.messages, 'every message accounted for');
    assert.ok((report.judgement.byKind.find((k) => k.kind === 'valid-order')?.started ?? 0) > 0);
    // The bridge runs with the stack's registry: another registry's values wait a moment, then
    // go to the DLQ as schema-unknown, every one of them, and nothing wedges.
    const foreign = report.judgement.byKind.find((k) => k.kind === 'foreign-registry');
    assert.ok(foreign && foreign.messages > 0, 'the stream has foreign-registry values');
    assert.deepEqual(foreign.reasons, { 'schema-unknown': foreign.messages });
  });
});
