/**
 * Temporal batch operations for the bulk commands: start one over an explicit list of runs,
 * follow it with describeBatchOperation (a progress bar on a terminal), and afterwards tell,
 * from each run's history, whether our signal reached a workflow that could act on it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { GRPC_STATUS } from '../temporal/grpc-status';
import { createProgress } from './output';

const { BatchOperationState } = temporal.api.enums.v1;

/** One run a batch acts on. */
export interface BatchTarget {
  workflowId: string;
  runId: string;
}

/** The operation of a batch, as StartBatchOperationRequest spells it. */
export type BatchOperation =
  | { signalOperation: temporal.api.batch.v1.IBatchOperationSignal }
  | { cancellationOperation: temporal.api.batch.v1.IBatchOperationCancellation }
  | { unpauseActivitiesOperation: temporal.api.batch.v1.IBatchOperationUnpauseActivities }
  | {
      updateWorkflowOptionsOperation: temporal.api.batch.v1.IBatchOperationUpdateWorkflowExecutionOptions;
    };

/** What the server counted for a finished batch job. */
export interface BatchCounts {
  jobId: string;
  state: 'completed' | 'failed';
  total: number;
  completed: number;
  failed: number;
}

/**
 * Runs per batch job. The server has a per-namespace cap on running jobs
 * (`frontend.MaxConcurrentBatchOperationPerNamespace`, 1 on the CLI dev server unless raised),
 * so chunks run one after the other rather than at once.
 */
export const MAX_TARGETS_PER_JOB = 1000;

/** A batch job ID that says what it was and sorts by time: `onceflow-retry-<time>-<hex>`. */
export function newJobId(verb: string, now = new Date()): string {
  const time = now.toISOString().replace(/[-:.]/g, '').toLowerCase();
  return `onceflow-${verb}-${time}-${randomBytes(3).toString('hex')}`;
}

/** Options of runBatch. */
export interface RunBatchOptions {
  verb: string;
  reason: string;
  targets: BatchTarget[];
  operation: BatchOperation;
  /** Label of the progress bar. */
  label: string;
  /** Give up waiting for one job after this long. Default 10 minutes. */
  timeoutMs?: number;
  /** How often the job is described. Default 500 ms. */
  pollMs?: number;
}

/** Starts the batch jobs (chunks of MAX_TARGETS_PER_JOB) in turn, each to its end. */
export async function runBatch(client: Client, options: RunBatchOptions): Promise<BatchCounts[]> {
  const { namespace } = client.options;
  const progress = createProgress(options.label, options.targets.length, { ttyOnly: true });
  const jobs: BatchCounts[] = [];
  let doneBefore = 0;
  for (let i = 0; i < options.targets.length; i += MAX_TARGETS_PER_JOB) {
    const chunk = options.targets.slice(i, i + MAX_TARGETS_PER_JOB);
    const jobId = newJobId(options.verb);
    await client.workflowService.startBatchOperation({
      namespace,
      jobId,
      reason: options.reason,
      executions: chunk.map((t) => ({ workflowId: t.workflowId, runId: t.runId })),
      ...options.operation,
    });
    const counts = await waitForJob(client, jobId, options, (done) =>
      progress.update(doneBefore + Math.min(done, chunk.length)),
    );
    doneBefore += chunk.length;
    jobs.push(counts);
  }
  progress.update(options.targets.length);
  return jobs;
}

async function waitForJob(
  client: Client,
  jobId: string,
  options: RunBatchOptions,
  onProgress: (done: number) => void,
): Promise<BatchCounts> {
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    const job = await client.workflowService
      .describeBatchOperation({ namespace: client.options.namespace, jobId })
      .catch((err: unknown) => {
        // The job's own workflow may not be visible for a moment after the start.
        if (isGrpcServiceError(err) && err.code === GRPC_STATUS.NOT_FOUND) return undefined;
        throw err;
      });
    if (job) {
      const completed = Number(job.completeOperationCount ?? 0);
      const failed = Number(job.failureOperationCount ?? 0);
      onProgress(completed + failed);
      if (
        job.state === BatchOperationState.BATCH_OPERATION_STATE_COMPLETED ||
        job.state === BatchOperationState.BATCH_OPERATION_STATE_FAILED
      ) {
        return {
          jobId,
          state:
            job.state === BatchOperationState.BATCH_OPERATION_STATE_COMPLETED
              ? 'completed'
              : 'failed',
          total: Number(job.totalOperationCount ?? 0),
          completed,
          failed,
        };
      }
    }
    if (Date.now() > deadline) {
      throw new Error(
        `batch job ${jobId} still running after ${options.timeoutMs ?? 600_000} ms; follow it in the Web UI (Batch Operations) or with temporal batch describe --job-id ${jobId}`,
      );
    }
    await sleep(options.pollMs ?? 500);
  }
}
