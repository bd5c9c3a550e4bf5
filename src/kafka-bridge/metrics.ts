import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PartitionPauses } from './partition-pauses';
import { PartitionProgress } from './partition-progress';

/** What the scheduler reports at scrape time (set by the bridge; nothing until it runs). */
export interface SchedulerView {
  /** Each partition's read-ahead window: records and bytes waiting or handled, not committed. */
  windows(): Array<{ topic: string; partition: number; records: number; bytes: number }>;
  /** Runs counted against the open-run caps, by what they count against. */
  openRuns(): { total: number; background: number };
}

/** The bridge's Prometheus metrics (docs/architecture.md, "Bridge behaviour"). */
export function createBridgeMetrics(
  progress: PartitionProgress = new PartitionProgress(),
  pauses: PartitionPauses = new PartitionPauses(),
) {
  const registry = new Registry();
  const scheduler: { view?: SchedulerView } = {};
  collectDefaultMetrics({ register: registry, prefix: 'onceflow_bridge_' });
  const labels = ['topic'] as const;
  return {
    registry,
    consumed: new Counter({
      name: 'onceflow_bridge_consumed_total',
      help: 'Messages consumed',
      labelNames: labels,
      registers: [registry],
    }),
    started: new Counter({
      name: 'onceflow_bridge_started_total',
      help: 'Workflows started',
      labelNames: ['topic', 'workflow_type'] as const,
      registers: [registry],
    }),
    duplicates: new Counter({
      name: 'onceflow_bridge_duplicates_total',
      help: 'Events deduplicated, by where the duplicate was detected (ledger or temporal)',
      labelNames: ['topic', 'source'] as const,
      registers: [registry],
    }),
    conflicts: new Counter({
      name: 'onceflow_bridge_conflicts_total',
      help: 'Same identity with a different payload fingerprint',
      labelNames: labels,
      registers: [registry],
    }),
    stale: new Counter({
      name: 'onceflow_bridge_stale_total',
      help: 'Events at or below the highest applied version of their aggregate',
      labelNames: labels,
      registers: [registry],
    }),
    dlq: new Counter({
      name: 'onceflow_bridge_dlq_total',
      help: 'Messages written to the DLQ, by reason',
      labelNames: ['topic', 'reason'] as const,
      registers: [registry],
    }),
    dlqStubs: new Counter({
      name: 'onceflow_bridge_dlq_stub_total',
      help: 'DLQ stub records written because the DLQ refused the full record (dlq-stub.ts)',
      labelNames: ['topic', 'reason'] as const,
      registers: [registry],
    }),
    failedAttempts: new Counter({
      name: 'onceflow_bridge_failed_attempts_total',
      help: 'Failed tries on a message path, by dependency and error classification',
      labelNames: ['dependency', 'kind'] as const,
      registers: [registry],
    }),
    transientRetries: new Counter({
      name: 'onceflow_bridge_transient_retries_total',
      help: 'Retries because a dependency (temporal, postgres, dlq, or kafka for the consumer) was unavailable or refused the bridge for a reason an operator fixes; fault says which (error-codes.ts)',
      labelNames: ['dependency', 'fault'] as const,
      registers: [registry],
    }),
    consumerRestarts: new Counter({
      name: 'onceflow_bridge_consumer_restarts_total',
      help: 'Consumer restarts after a failure (a message or batch that wedges the consumer shows here)',
      registers: [registry],
    }),
    startLatency: new Histogram({
      name: 'onceflow_bridge_start_latency_seconds',
      help: 'Duration of a workflow start call (including dedup lookups on conflict)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    lag: new Gauge({
      name: 'onceflow_bridge_consumer_lag',
      help: 'Messages readable but not yet handled, per partition: last stable offset (the high watermark when no transaction is open) minus the committed offset',
      labelNames: ['topic', 'partition'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const l of progress.lags())
          this.set({ topic: l.topic, partition: String(l.partition) }, l.messages);
      },
    }),
    progress,
    pauses,
    scheduler,
    windowRecords: new Gauge({
      name: 'onceflow_bridge_window_records',
      help: "Records in a partition's read-ahead window (fetched, not committed); the partition is paused at BRIDGE_WINDOW_RECORDS",
      labelNames: ['topic', 'partition'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const w of scheduler.view?.windows() ?? [])
          this.set({ topic: w.topic, partition: String(w.partition) }, w.records);
      },
    }),
    openRuns: new Gauge({
      name: 'onceflow_bridge_open_runs',
      help: 'Runs this bridge started that count against its open-run caps (starts in flight included), all and those of replays and backfills',
      labelNames: ['class'] as const,
      registers: [registry],
      collect() {
        this.reset();
        const open = scheduler.view?.openRuns();
        if (!open) return;
        this.set({ class: 'all' }, open.total);
        this.set({ class: 'background' }, open.background);
      },
    }),
    partitionPaused: new Gauge({
      name: 'onceflow_bridge_partition_paused',
      help: 'Partitions paused because their batch waits on its environment (1 each): the dependency and its fault (slow: a call in flight for over 1.5 s that has not failed yet); the bridge reads its other partitions meanwhile',
      labelNames: ['topic', 'partition', 'dependency', 'fault'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const p of pauses.list())
          this.set(
            {
              topic: p.topic,
              partition: String(p.partition),
              dependency: p.dependency,
              fault: p.fault,
            },
            1,
          );
      },
    }),
    partitionStalled: new Gauge({
      name: 'onceflow_bridge_partition_stalled_seconds',
      help: 'Seconds since the partition committed offset last advanced while messages wait (0 when caught up)',
      labelNames: ['topic', 'partition'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of progress.stalls())
          this.set({ topic: s.topic, partition: String(s.partition) }, s.seconds);
      },
    }),
  };
}

export type BridgeMetrics = ReturnType<typeof createBridgeMetrics>;

/** Serves GET /metrics (Prometheus text) and GET /healthz on `port` (0 = any free port). */
export async function serveMetrics(
  registry: Registry,
  port: number,
  host = '127.0.0.1', // closed by default; BRIDGE_METRICS_HOST opens it (issue 17)
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(text);
        },
        (err: unknown) => {
          res.writeHead(500);
          res.end(String(err));
        },
      );
    } else if (req.url === '/healthz') {
      res.writeHead(200);
      res.end('ok');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
