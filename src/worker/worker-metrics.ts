import { Runtime } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { SEARCH_ATTRIBUTE, SYSTEM_ATTRIBUTE, visibility } from '../temporal/search-attributes';
import type { BuildReport } from './build-report';

/** Name of the gauge of parked orders (alerts.yml and the dashboard use it). */
export const ORDERS_PARKED_METRIC = 'onceflow_orders_parked';

/**
 * The visibility query whose count is the gauge (the same query works in the Web UI): running
 * saga runs of every registered domain parked in needs_attention (only the engine's saga runs
 * set Step). The metric keeps its first name, from when orders were the only domain.
 */
export const PARKED_QUERY = visibility.allOf(
  visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Running'),
  visibility.equals(SEARCH_ATTRIBUTE.step, 'needs_attention'),
);

/** `host:port` for the runtime's exporter (IPv6 hosts in brackets); loopback unless opened. */
export function metricsBindAddress(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Installs the Temporal runtime with its Prometheus exporter on `port` (GET /metrics), so
 * the SDK's worker metrics (temporal_*) and onceflow's own gauges are scraped beside the
 * bridge's. Must run before the first connection or worker is created. Returns false, after
 * a warning, when the port is taken: a worker without metrics still fulfils orders, and a
 * crash loop over a port would not.
 */
export function installWorkerMetrics(port: number, log: Logger, host = '127.0.0.1'): boolean {
  if (port === 0) return false;
  try {
    Runtime.install({
      telemetryOptions: {
        metrics: { prometheus: { bindAddress: metricsBindAddress(host, port) } },
      },
    });
    return true;
  } catch (err) {
    log.warn({ err, port }, 'worker metrics not exported (set WORKER_METRICS_PORT)');
    return false;
  }
}

/**
 * Installs the runtime without an exporter, after a failed connection attempt tore down the
 * one installWorkerMetrics made and another process took its port (see connectWorker).
 */
export function installRuntimeWithoutMetrics(): void {
  Runtime.install({});
}

/** Options of startParkedGauge. */
export interface ParkedGaugeOptions {
  /** Pause between visibility counts. Default: 30 000 ms (a Prometheus scrape interval). */
  intervalMs?: number;
}

/**
 * Publishes the number of orders parked in needs_attention as a gauge on the runtime's
 * exporter. Counted from visibility, not from workflow code, so it covers every worker's
 * orders and needs no workflow change; every worker reports the same namespace-wide value,
 * hence `max()` in the alert. Returns a stop function.
 */
export function startParkedGauge(
  client: Client,
  log: Logger,
  options: ParkedGaugeOptions = {},
): () => void {
  const gauge = Runtime.instance().metricMeter.createGauge(
    ORDERS_PARKED_METRIC,
    'int',
    '',
    'Runs (orders and every other domain) parked in needs_attention, waiting for an operator (visibility count)',
  );
  let stopped = false;
  const refresh = async () => {
    try {
      const { count } = await client.workflow.count(PARKED_QUERY);
      if (!stopped) gauge.set(count);
    } catch (err) {
      // Keep the last value: a visibility hiccup must not look like "nothing parked".
      log.warn({ err }, 'counting parked orders failed');
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), options.intervalMs ?? 30_000);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** Name of the gauge of open runs per build of the worker's deployment (alerts.yml uses it). */
export const BUILD_OPEN_RUNS_METRIC = 'onceflow_worker_build_open_runs';

/** Name of the gauge of builds whose stored code this worker refused (alerts.yml uses it). */
export const BUILD_REFUSED_METRIC = 'onceflow_worker_build_refused';

/**
 * Publishes each build's open runs on the runtime's exporter, labelled by build, whether it is
 * current, and who serves it (`missing`, `refused`, `drain-limit`: nobody here can); and
 * `onceflow_worker_build_refused{build_id,kind}` = 1 for each build whose stored code is
 * refused (a drain's, or another code under this worker's own build ID). A run parked for
 * days keeps its build served: this is where that shows (docs/deploying.md). A label set a
 * refresh no longer reports is set to 0: the exporter keeps every set's last value.
 */
export function buildGauge(): (report: readonly BuildReport[]) => void {
  const meter = Runtime.instance().metricMeter;
  const openRuns = zeroingGauge(
    meter.createGauge(
      BUILD_OPEN_RUNS_METRIC,
      'int',
      '',
      "Open runs pinned to each build of the worker's deployment (docs/deploying.md)",
    ),
  );
  const refused = zeroingGauge(
    meter.createGauge(
      BUILD_REFUSED_METRIC,
      'int',
      '',
      'Builds whose stored code no worker runs: it does not hash to its build ID, or was built with another SDK (docs/deploying.md)',
    ),
  );
  return (report) => {
    openRuns(
      report.map((b) => ({
        value: b.openRuns,
        labels: { build_id: b.buildId, current: String(b.current), served_by: b.servedBy },
      })),
    );
    refused(
      report
        .filter((b) => b.refused)
        .map((b) => ({ value: 1, labels: { build_id: b.buildId, kind: b.refused!.kind } })),
    );
  };
}

type Gauge = ReturnType<ReturnType<typeof Runtime.instance>['metricMeter']['createGauge']>;

/** Sets a gauge's label sets each time, and 0 on every set it had before and not now. */
function zeroingGauge(gauge: Gauge) {
  let last = new Map<string, Record<string, string>>();
  return (points: Array<{ value: number; labels: Record<string, string> }>) => {
    const now = new Map(points.map((p) => [JSON.stringify(p.labels), p.labels]));
    for (const [key, labels] of last) if (!now.has(key)) gauge.set(0, labels);
    for (const p of points) gauge.set(p.value, p.labels);
    last = now;
  };
}
