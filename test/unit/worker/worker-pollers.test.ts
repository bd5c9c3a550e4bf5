import assert from 'node:assert/strict';
import { compileWorkerOptions } from '@temporalio/worker/lib/worker-options';
import { DefaultLogger } from '@temporalio/worker';
import { loadConfig } from '../../../src/config';
import { pollersOf } from '../../../src/worker/create-worker';

/** What the SDK would poll with, for our options (its own option compiler). */
function compiledPollers(env: Record<string, string>) {
  const compiled = compileWorkerOptions(
    { taskQueue: 'q', workflowsPath: __filename, ...pollersOf(loadConfig(env)) },
    new DefaultLogger('WARN'),
    undefined as never,
  ) as unknown as Record<string, { maximum?: number }>;
  return [
    compiled.workflowTaskPollerBehavior!.maximum,
    compiled.activityTaskPollerBehavior!.maximum,
  ];
}

describe('worker pollers', () => {
  it('WORKER_*_TASK_POLLERS reach the SDK (its maxConcurrent*Polls options do not)', () => {
    assert.deepEqual(compiledPollers({}), [10, 10]);
    assert.deepEqual(
      compiledPollers({ WORKER_WORKFLOW_TASK_POLLERS: '2', WORKER_ACTIVITY_TASK_POLLERS: '4' }),
      [2, 4],
    );
  });
});
