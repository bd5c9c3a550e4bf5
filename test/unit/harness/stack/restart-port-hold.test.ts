import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { singleBrokerLayout } from '../../../../harness/stack/kafka-layout';
import { isPortFree, pickAnyPort } from '../../../../harness/stack/ports';
import { isAlive } from '../../../../harness/stack/processes';
import { releaseKafkaPorts, stopKafkaBroker } from '../../../../harness/stack/restart';
import type { RunningStack } from '../../../../harness/stack/stack-state';

describe('stopKafkaBroker: the killed broker keeps its port', () => {
  let root: string;
  afterEach(async () => {
    await releaseKafkaPorts();
    rmSync(root, { recursive: true, force: true });
  });

  it('holds the broker and controller ports once the process is gone, until released', async () => {
    root = mkdtempSync(join(tmpdir(), 'onceflow-restart-'));
    const taken = new Set<number>();
    const ports = { broker: await pickAnyPort(taken), controller: await pickAnyPort(taken) };
    // A stand-in for the broker's process group (what stopKafkaBroker signals).
    const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    child.unref();
    const stack = {
      state: { pids: { kafka: child.pid }, kafka: singleBrokerLayout(ports) },
      paths: { root, stateFile: join(root, 'stack.json') },
    } as unknown as RunningStack;
    await stopKafkaBroker(stack, 1);
    assert.equal(isAlive(child.pid!), false, 'the broker is dead');
    assert.equal(stack.state.pids.kafka, undefined, 'and out of stack.json');
    assert.equal(await isPortFree(ports.broker), false, 'its client port is held');
    assert.equal(await isPortFree(ports.controller), false, 'its controller port is held');
    await releaseKafkaPorts();
    assert.equal(await isPortFree(ports.broker), true);
    assert.equal(await isPortFree(ports.controller), true);
  });
});
