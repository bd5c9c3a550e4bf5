import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireChaosLock, ChaosLockError } from '../../../../harness/chaos/lock';

describe('chaos lock (one fault-injecting run per stack)', () => {
  it('refuses a second run while the first holds the stack, and frees it on release', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onceflow-lock-'));
    // The holder must be another live process: pid 1 always is.
    writeFileSync(join(dir, 'chaos.lock'), '1');
    assert.throws(
      () => acquireChaosLock(dir),
      (err: unknown) => err instanceof ChaosLockError && err.holderPid === 1,
    );
    writeFileSync(join(dir, 'chaos.lock'), String(process.pid));
    const release = acquireChaosLock(dir);
    release();
    assert.equal(existsSync(join(dir, 'chaos.lock')), false);
  });

  it('takes over the lock of a run that was killed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onceflow-lock-'));
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(join(dir, 'chaos.lock'), gone.stdout.toString());
    const release = acquireChaosLock(dir);
    assert.equal(readFileSync(join(dir, 'chaos.lock'), 'utf8'), String(process.pid));
    release();
  });
});
