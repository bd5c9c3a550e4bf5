import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The bridge's Prometheus metrics (ARCHITECTURE.md, "Bridge behaviour"). */
export function createBridgeMetrics() {
  const registry = new Registry();
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
    transientRetries: new Counter({
      name: 'onceflow_bridge_transient_retries_total',
      help: 'Retries because Temporal, Postgres or the DLQ producer was unavailable',
      labelNames: ['dependency'] as const,
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
      help: 'High watermark minus the next offset to handle, per partition',
      labelNames: ['topic', 'partition'] as const,
      registers: [registry],
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
