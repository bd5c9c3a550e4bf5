import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpuDelta, cpuSeconds, peakRssMiB } from '../../bench/proc-cpu';

/** Burns CPU for about `ms` in this process. */
function burn(ms: number): void {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1);
  assert.ok(x > 0);
}

describe('bench CPU accounting from /proc', () => {
  it('counts this process’s own CPU and its growth', () => {
    const before = cpuSeconds({ self: process.pid });
    burn(300);
    const after = cpuSeconds({ self: process.pid });
    const spent = cpuDelta(before, after).self!;
    // At least part of 300 ms of busy loop (the machine is shared), never more than wall time.
    assert.ok(spent >= 0.05 && spent <= 1.5, `spent ${spent} s`);
  });

  it('counts a live child in its parent’s tree (Postgres forks a backend per connection)', async () => {
    const child = spawn(process.execPath, [
      '-e',
      'const e=Date.now()+400;let x=0;while(Date.now()<e)x+=Math.sqrt(x+1);setTimeout(()=>{},5000)',
    ]);
    try {
      await new Promise((r) => setTimeout(r, 700));
      const tree = cpuSeconds({ tree: process.pid }).tree!;
      const own = cpuSeconds({ child: child.pid! }).child!;
      assert.ok(own >= 0.05, `child spent ${own} s`);
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
