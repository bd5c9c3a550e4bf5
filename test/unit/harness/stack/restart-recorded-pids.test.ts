import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../../../../harness/stack/processes';
import { stopStackPostgres } from '../../../../harness/stack/restart';
import { writeStackState, type RunningStack } from '../../../../harness/stack/stack-state';

describe('restarts act on the pids stack.json records now, not on a stale copy', () => {
  let root: string;
  let live: number | undefined;
  afterEach(() => {
    if (live !== undefined && isAlive(live)) process.kill(-live, 'SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('stops the Postgres another holder of the stack started since this copy was read', async () => {
    root = mkdtempSync(join(tmpdir(), 'onceflow-restart-'));
    const paths = { root, stateFile: join(root, 'stack.json') };
    const env = {
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      TEMPORAL_UI_URL: 'http://127.0.0.1:8233',
      KAFKA_BROKERS: '127.0.0.1:9092',
      DATABASE_URL: 'postgres://onceflow@127.0.0.1:55432/onceflow',
    };
    // The copy a test read at load: a Postgres that has since been restarted (its pid gone).
    const gone = spawn('true', [], { detached: true, stdio: 'ignore' });
    await new Promise((r) => gone.once('exit', r));
    const stale = { paths, state: { pids: { postgres: gone.pid! }, env, startedAt: '' } };
    // The restart recorded its new process (a stand-in for its process group) in stack.json.
    const current = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    current.unref();
    live = current.pid!;
    writeStackState(
      paths as never,
      {
        ...stale.state,
        pids: { postgres: live },
      } as unknown as RunningStack['state'],
    );

    await stopStackPostgres(stale as never);
    assert.equal(isAlive(live), false, 'the Postgres stack.json records now is stopped');
  });
});
