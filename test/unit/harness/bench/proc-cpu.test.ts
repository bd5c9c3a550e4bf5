import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { cpuDelta, cpuSeconds, peakRssMiB } from '../../../../harness/bench/proc-cpu';
import { waitFor } from '../../../../src/util/wait';

/**
 * Burns `seconds` of this process's own CPU time (user + system), however long that takes in
 * wall time on a shared machine.
 */
function burnCpu(seconds: number): void {
  const start = process.cpuUsage();
  let x = 0;
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1e6 >= seconds) break;
    for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + 1);
  }
  assert.ok(x > 0);
}

describe('bench CPU accounting from /proc', () => {
  it('counts this process’s own CPU and its growth', () => {
    const before = cpuSeconds({ self: process.pid });
    const wallStart = performance.now();
    burnCpu(0.2);
    const after = cpuSeconds({ self: process.pid });
    const wall = (performance.now() - wallStart) / 1000;
    const spent = cpuDelta(before, after).self!;
    // The 0.2 s burnt (less a clock tick of rounding), never more than all cores for the
    // wall time it took (plus a tick).
    assert.ok(
      spent >= 0.18 && spent <= wall * availableParallelism() + 0.02,
      `spent ${spent} s in ${wall} s`,
    );
  });

  it('counts a live child in its parent’s tree (Postgres forks a backend per connection)', async () => {
    // The child spends 0.2 s of its own CPU (not of wall time: the machine is shared), says
    // so, and stays alive to be counted.
    const child = spawn(process.execPath, [
      '-e',
      'let x=0;while(process.cpuUsage().user<200000)x+=Math.sqrt(x+1);' +
        'process.stdout.write("burnt\\n");setTimeout(()=>{},30000)',
    ]);
    let said = '';
    child.stdout.on('data', (d: Buffer) => (said += d.toString()));
    try {
      await waitFor(() => said.includes('burnt'), {
        timeoutMs: 30_000,
        intervalMs: 20,
        what: 'the child to burn 0.2 s of CPU',
      });
      const tree = cpuSeconds({ tree: process.pid }).tree!;
      const own = cpuSeconds({ child: child.pid! }).child!;
      assert.ok(own >= 0.15, `child spent ${own} s`);
      const self = process.cpuUsage();
      assert.ok(tree >= own + (self.user + self.system) / 1e6 - 0.1, `tree ${tree} s`);
    } finally {
      child.kill();
      await once(child, 'exit');
    }
  });

  it('leaves out processes that are gone and reads peak RSS', () => {
    assert.deepEqual(cpuSeconds({ gone: 2 ** 22 + 12345 }), {});
    assert.equal(peakRssMiB(2 ** 22 + 12345), 0);
    assert.ok(peakRssMiB(process.pid) > 10);
  });
});
