import type { Env } from './env';

/**
 * Where the scheduling settings (scheduling-settings.ts) go in Config: the bridge's read-ahead
 * and open-run caps, the worker's eager dispatch and sticky queue, a provider's pace.
 */
export function schedulingOf(e: Env) {
  return {
    bridge: {
      /** The read-ahead per partition (src/kafka-bridge/read-ahead-window.ts). */
      window: { records: e.BRIDGE_WINDOW_RECORDS, bytes: e.BRIDGE_WINDOW_BYTES },
      /** Caps on open runs, 0 = none (src/kafka-bridge/open-runs.ts). */
      openRuns: {
        total: e.BRIDGE_MAX_OPEN_RUNS,
        perTenant: e.BRIDGE_MAX_OPEN_RUNS_PER_TENANT,
        background: e.BRIDGE_MAX_OPEN_BACKGROUND_RUNS,
      },
      /** How often closed runs are read from visibility (ms, closed-runs.ts). */
      openRunsPollMs: e.BRIDGE_OPEN_RUNS_POLL,
      /** How long a started run counts against the caps at most (ms). */
      openRunHorizonMs: e.BRIDGE_OPEN_RUN_HORIZON,
    },
    worker: {
      /** WORKER_EAGER_ACTIVITIES and the sticky queue (src/worker/fairness-options.ts). */
      eagerActivities: e.WORKER_EAGER_ACTIVITIES,
      stickyQueue: e.WORKER_STICKY_QUEUE === 'on',
      stickyQueueTimeoutMs: e.WORKER_STICKY_QUEUE_TIMEOUT,
    },
    fairness: {
      /** PROVIDER_RATE_SHARE: the share of a limit its calls are paced at (src/activities/provider-pace.ts). */
      providerRateShare: e.PROVIDER_RATE_SHARE,
    },
  };
}
