// Admission's eyes: which runs closed, read from Temporal's visibility, so the bridge's count
// of its open runs (open-runs.ts) goes down and the starts waiting on a cap go ahead.
//
// Why a list of closes and not a count per tenant: visibility counts by a search attribute
// only (GROUP BY takes ExecutionStatus alone), so a count per tenant would be one query per
// tenant every few seconds and a tenant search attribute of its own (SQL visibility has ten
// custom Keywords per namespace, all spent); a describe per open run costs one call per run.
// One paged list of the task queue's runs that closed since the last read costs what closes,
// whatever the number of tenants or open runs, and the bridge already knows the tenant of
// every run it started.
import type { Client } from '@temporalio/client';
import { SYSTEM_ATTRIBUTE, visibility } from '../temporal/search-attributes';
import { describeError } from './classify-error';
import type { OpenRuns } from './open-runs';
import type { Logger } from '../logger';

/**
 * How far back each read reaches past the previous one: a close is listed by visibility a
 * moment after its CloseTime (Elasticsearch refreshes every second), and one missed would
 * hold its tenant's count up for good. The overlap lists some closes twice; counting one
 * twice is harmless (a close is taken off once).
 */
export const CLOSE_OVERLAP_MS = 5_000;

/** Options of watchClosedRuns. */
export interface ClosedRunsOptions {
  client: Client;
  taskQueue: string;
  openRuns: OpenRuns;
  /** BRIDGE_OPEN_RUNS_POLL: while a count is at half its cap or more; 15 times as long otherwise. */
  pollMs: number;
  /** Runs closed: starts may go ahead. */
  onClosed: () => void;
  log: Logger;
  now?: () => number;
}

/** The query of the task queue's runs closed at or after `since`. */
export function closedSinceQuery(taskQueue: string, since: Date): string {
  return visibility.allOf(
    visibility.equals('TaskQueue', taskQueue),
    visibility.atOrAfter(SYSTEM_ATTRIBUTE.closeTime, since),
  );
}

/**
 * Counts the task queue's open runs once (the ones this bridge did not start count in the
 * total), then reads the closes until stopped. Failures are logged and retried at the next
 * read: meanwhile the counts stay as they are (never below the truth).
 */
export function watchClosedRuns(options: ClosedRunsOptions): { stop(): Promise<void> } {
  const { client, taskQueue, openRuns, log } = options;
  const now = options.now ?? Date.now;
  const seededAt = new Date(now());
  let since = new Date(now() - CLOSE_OVERLAP_MS);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: () => void = () => undefined;
  let failures = 0;
  // Stopping aborts a call in flight: the client would retry it into a closed connection.
  const abort = new AbortController();
  const call = <T>(fn: () => Promise<T>) => client.withAbortSignal(abort.signal, fn);

  const seed = async () => {
    const running = visibility.allOf(
      visibility.equals('TaskQueue', taskQueue),
      visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Running'),
    );
    openRuns.seedUnattributed((await call(() => client.workflow.count(running))).count);
  };

  const read = async () => {
    const started = new Date(now());
    let closed = 0;
    const query = closedSinceQuery(taskQueue, new Date(since.getTime() - CLOSE_OVERLAP_MS));
    await call(async () => {
      for await (const run of client.workflow.list({ query, pageSize: 1000 })) {
        if (openRuns.noteClosed(run.workflowId, run.startTime < seededAt)) closed++;
        if (stopped) return;
      }
    });
    since = started;
    if (closed > 0) options.onClosed();
  };

  const loop = (async () => {
    try {
      await seed();
    } catch (err) {
      if (stopped) return;
      log.warn({ err: describeError(err) }, 'could not count the open runs at start');
    }
    let lastRead = 0;
    while (!stopped) {
      if (openRuns.expire()) options.onClosed();
      // Every poll while a count is near its cap; otherwise now and then, to keep them true.
      if (openRuns.pressed || now() - lastRead >= options.pollMs * 15) {
        lastRead = now();
        try {
          await read();
          failures = 0;
        } catch (err) {
          // One line per outage, not per read: the bridge's other logs say Temporal is down.
          if (failures++ === 0)
            log.warn(
              { err: describeError(err) },
              'could not read closed runs; open-run counts wait',
            );
        }
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, options.pollMs);
      });
    }
  })();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      abort.abort();
      wake();
      await loop;
    },
  };
}
