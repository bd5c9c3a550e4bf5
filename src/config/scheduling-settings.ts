import { z } from 'zod';
import type { SettingSpec } from './setting-spec';
import { duration, positiveInt } from './env-schema';

/** A count where 0 turns the cap off. */
const capOrOff = z.coerce
  .number('must be a number')
  .int('must be a whole number')
  .min(0, 'must be 0 (no cap) or more');

const onOff = z.enum(['on', 'off'], 'must be on or off');

/**
 * The settings of how work is scheduled so tenants share it (docs/bridge.md, "Fair from the
 * first byte"): the bridge's read-ahead and open-run caps, what the worker sets on Temporal
 * for fairness, and how a provider's limit is paced. Part of THE settings table (settings.ts).
 */
export const SCHEDULING_SETTINGS = {
  BRIDGE_WINDOW_RECORDS: {
    parse: positiveInt,
    default: '2000',
    doc:
      'Read-ahead per partition: records fetched and not yet committed, at most, before the ' +
      'bridge pauses the partition (resumed below half). Starts are picked from this window, ' +
      "so a quiet tenant's event is reached past this many of a flood's; it is also what a " +
      'crash re-reads at most (each deduplicated).',
  },
  BRIDGE_WINDOW_BYTES: {
    parse: positiveInt.min(65_536, 'must be at least 65536 (bytes)'),
    default: '8388608',
    doc:
      'Read-ahead per partition in bytes (keys, values, headers) of records not yet handled, ' +
      'at most, before the partition is paused (resumed below half). Bounds memory with ' +
      'BRIDGE_WINDOW_RECORDS: about both per partition the bridge owns, plus one fetch.',
  },
  BRIDGE_MAX_OPEN_RUNS: {
    parse: capOrOff,
    default: '1000',
    doc:
      'Runs this bridge started that are still open, at most, over every tenant; a start ' +
      'beyond it waits in the window until runs close (read from visibility). 0: no cap.',
  },
  BRIDGE_MAX_OPEN_RUNS_PER_TENANT: {
    parse: capOrOff,
    default: '200',
    doc:
      "One tenant's open runs started by this bridge, at most (events without a tenant share " +
      "one cap): a flood waits in the bridge, not in the workers' slots and sticky queues, so " +
      "another tenant's run gets there first. 0: no cap.",
  },
  BRIDGE_MAX_OPEN_BACKGROUND_RUNS: {
    parse: capOrOff,
    default: '100',
    doc:
      'Open runs of DLQ replays and backfills started by this bridge, at most: a backfill ' +
      "keeps this many runs in Temporal's queues beside live traffic, not its whole history. " +
      '0: no cap.',
  },
  BRIDGE_OPEN_RUN_HORIZON: {
    parse: duration,
    default: '2m',
    doc:
      'How long a run this bridge started counts against the open-run caps at most: a run ' +
      'still open after it waits (a timer, a signal, an operator) rather than works, and no ' +
      "longer holds its tenant's starts back.",
  },
  BRIDGE_OPEN_RUNS_POLL: {
    parse: duration,
    default: '2s',
    doc:
      'How often the bridge reads the runs that closed (one visibility list of the task ' +
      "queue's closes) while a count is at half its cap or more; every 15 times as long otherwise.",
  },
  WORKER_EAGER_ACTIVITIES: {
    parse: z.enum(['auto', 'on', 'off'], 'must be auto, on or off'),
    default: 'auto',
    doc:
      "Eager activity dispatch: the server hands a run's next activity to the worker that " +
      'completed its workflow task, bypassing matching, so neither priority nor fairness ' +
      'applies to it. `auto`: off when a route names a tenant or TENANT_WEIGHTS is set, on otherwise.',
  },
  WORKER_STICKY_QUEUE: {
    parse: onOff,
    default: 'on',
    doc:
      "`off`: no sticky execution (the worker caches no run, each workflow task replays the run's " +
      'history and goes through the fair queue): sticky queues honour priority but not fairness. ' +
      'Costs a replay per workflow task; the open-run caps bound the FIFO on a sticky queue instead.',
  },
  WORKER_STICKY_QUEUE_TIMEOUT: {
    parse: duration,
    default: '10s',
    doc:
      "How long a workflow task may wait on a worker's sticky queue before it moves to the " +
      "normal queue, where fairness applies (the SDK's stickyQueueScheduleToStartTimeout).",
  },
  PROVIDER_RATE_SHARE: {
    parse: z.coerce
      .number('must be a number')
      .min(0.5, 'must be at least 0.5')
      .max(1, 'must be at most 1'),
    default: '0.95',
    doc:
      'The share of a PROVIDER_RATE_LIMITS limit the calls are paced at, one call every ' +
      '1/(limit × share) s across every worker: the rest is room for network jitter between ' +
      "the worker and the provider's clock, so no second the provider counts sees more than the limit.",
  },
} as const satisfies Record<string, SettingSpec>;
