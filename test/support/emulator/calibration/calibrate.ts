// Measures what the real dev server writes for calibration/workflow.ts: every event's type and
// encoded size, and describe()'s history length and size, printed for the emulator's event
// table (test/support/emulator/event-bytes.ts). Run against the shared stack:
//   ONCEFLOW_STATE_DIR=... npx tsx test/support/emulator/calibration/calibrate.ts
import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { readStackState } from '../../../../harness/stack/stack-state';
import { loadConfig } from '../../../../src/config';
import { createClient } from '../../../../src/temporal/connection';
import { dataConverterFor } from '../../../../src/temporal/data-converter';
import { uniqueName } from '../../services';
import { answer, poke } from './workflow';

const SMALL = 10;
const LARGE = 100_000;

async function main(): Promise<void> {
  const stack = readStackState();
  Object.assign(process.env, stack?.env ?? {});
  const config = loadConfig(process.env);
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = createClient(connection, config);
  const workerConnection = await NativeConnection.connect({ address: config.temporal.address });
  const taskQueue = uniqueName('calibrate');
  let failed = false;
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: config.temporal.namespace,
    taskQueue,
    workflowsPath: require.resolve('./workflow'),
    dataConverter: dataConverterFor(config),
    activities: {
      echo: async (i: { key: string; pad: string; out: number }) => {
        if (i.key === 'fail-once' && !failed) {
          failed = true;
          throw ApplicationFailure.create({ type: 'Once', message: 'fails once' });
        }
        if (i.key === 'decline')
          throw ApplicationFailure.create({
            type: 'Declined',
            message: 'declined',
            nonRetryable: true,
          });
        if (i.key === 'timeout') await delay(1500);
        if (i.key === 'slow')
          await delay(3000, undefined, { signal: Context.current().cancellationSignal }).catch(
            () => undefined,
          );
        return { pad: 'y'.repeat(i.out) };
      },
    },
  });
  const workflowId = uniqueName('calibrate');
  await worker.runUntil(async () => {
    const h = await client.workflow.start('calibrated', {
      taskQueue,
      workflowId,
      args: [{ small: SMALL, large: LARGE, childId: `${workflowId}-kid` }],
    });
    await delay(2500);
    await h.signal(poke, { pad: 'z'.repeat(SMALL) });
    await h.executeUpdate(answer, { args: [{ ok: false }] }).catch(() => undefined);
    await h.executeUpdate(answer, { args: [{ ok: true }] });
    await h.result();
    const loop = await client.workflow.start('sleeps', {
      taskQueue,
      workflowId: `${workflowId}-sleeps`,
      args: [10],
    });
    await loop.result();
  });
  const loop = await connection.workflowService.describeWorkflowExecution({
    namespace: config.temporal.namespace,
    execution: { workflowId: `${workflowId}-sleeps` },
  });
  process.stdout.write(
    `sleeps(10): historyLength ${String(loop.workflowExecutionInfo!.historyLength)}\n`,
  );
  const raw = await connection.workflowService.describeWorkflowExecution({
    namespace: config.temporal.namespace,
    execution: { workflowId },
  });
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  let sum = 0;
  for (const e of history.events ?? []) {
    const bytes = temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
    sum += bytes;
    const type = temporal.api.enums.v1.EventType[e.eventType ?? 0];
    process.stdout.write(
      `${String(e.eventId).padStart(3)} ${String(bytes).padStart(7)}  ${type}\n`,
    );
  }
  const info = raw.workflowExecutionInfo!;
  process.stdout.write(
    `historyLength ${String(info.historyLength)}, historySizeBytes ${String(info.historySizeBytes)}, sum of encoded events ${sum}\n`,
  );
  await workerConnection.close();
  await connection.close();
}

void main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
