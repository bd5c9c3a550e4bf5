import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { ensureAptPackages } from '../../../harness/stack/apt';
import { runCommand } from '../../../harness/stack/run-command';
import {
  BUILD_OPEN_RUNS_METRIC,
  BUILD_REFUSED_METRIC,
  ORDERS_PARKED_METRIC,
} from '../../../src/worker/worker-metrics';

const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Metrics the Temporal TypeScript SDK's runtime (Core) exports under its default `temporal_`
 * prefix (docs.temporal.io/references/sdk-metrics) that the rules and dashboard may use.
 */
const TEMPORAL_SDK_METRICS = new Set([
  'temporal_request',
  'temporal_request_failure',
  'temporal_request_latency',
  'temporal_long_request',
  'temporal_long_request_failure',
  'temporal_long_request_latency',
  'temporal_workflow_completed',
  'temporal_workflow_failed',
  'temporal_workflow_canceled',
  'temporal_workflow_continue_as_new',
  'temporal_workflow_endtoend_latency',
  'temporal_workflow_task_queue_poll_empty',
  'temporal_workflow_task_queue_poll_succeed',
  'temporal_workflow_task_execution_failed',
  'temporal_workflow_task_execution_latency',
  'temporal_workflow_task_replay_latency',
  'temporal_workflow_task_schedule_to_start_latency',
  'temporal_activity_poll_no_task',
  'temporal_activity_execution_failed',
  'temporal_activity_execution_cancelled',
  'temporal_activity_execution_latency',
  'temporal_activity_schedule_to_start_latency',
  'temporal_activity_succeed_endtoend_latency',
  'temporal_worker_task_slots_available',
  'temporal_worker_task_slots_used',
  'temporal_worker_start',
  'temporal_num_pollers',
  'temporal_sticky_cache_hit',
  'temporal_sticky_cache_miss',
  'temporal_sticky_cache_size',
  'temporal_sticky_cache_total_forced_eviction',
]);

/** Names declared in the bridge's metrics module (`name: '…'`), plus the worker's gauges. */
function onceflowMetrics(): Set<string> {
  const source = readFileSync(resolve(ROOT, 'src/kafka-bridge/metrics.ts'), 'utf8');
  const names = [...source.matchAll(/name:\s*'([a-z_:][a-z0-9_:]*)'/g)].map((m) => m[1]!);
  return new Set([...names, ORDERS_PARKED_METRIC, BUILD_OPEN_RUNS_METRIC, BUILD_REFUSED_METRIC]);
}

/** Metric names in a PromQL expression; histogram series suffixes map to their metric. */
function metricNames(expr: string): string[] {
  const found = expr.match(/\b(?:onceflow|temporal)_[a-z0-9_]+/g) ?? [];
  return found.map((n) => n.replace(/_(bucket|sum|count)$/, ''));
}

function assertKnown(expr: string, where: string, known: Set<string>): number {
  const names = metricNames(expr);
  for (const name of names) {
    assert.ok(
      known.has(name) || TEMPORAL_SDK_METRICS.has(name),
      `${where}: ${name} is neither in src/kafka-bridge/metrics.ts nor a Temporal SDK metric`,
    );
  }
  return names.length;
}

interface Rule {
  alert: string;
  expr: string;
  labels?: { severity?: string };
  annotations?: { summary?: string };
}

describe('monitoring/prometheus/alerts.yml and monitoring/grafana/onceflow.json', () => {
  const known = onceflowMetrics();

  it('every alert has a name, severity and summary and uses only existing metrics', () => {
    const doc = parse(readFileSync(resolve(ROOT, 'monitoring/prometheus/alerts.yml'), 'utf8')) as {
      groups: Array<{ name: string; rules: Rule[] }>;
    };
    const rules = doc.groups.flatMap((g) => g.rules);
    assert.ok(rules.length >= 4);
    for (const rule of rules) {
      assert.ok(rule.alert, 'alert name');
      assert.ok(rule.labels?.severity, `${rule.alert}: severity`);
      assert.ok(rule.annotations?.summary, `${rule.alert}: summary`);
      assert.ok(assertKnown(rule.expr, rule.alert, known) > 0, `${rule.alert} uses a metric`);
    }
    const used = new Set(rules.flatMap((r) => metricNames(r.expr)));
    // The four signals the operations guide promises.
    for (const name of [
      ORDERS_PARKED_METRIC,
      'onceflow_bridge_dlq_total',
      'onceflow_bridge_consumer_lag',
      'onceflow_bridge_start_latency_seconds',
      'onceflow_bridge_partition_stalled_seconds',
      BUILD_OPEN_RUNS_METRIC,
      BUILD_REFUSED_METRIC,
    ]) {
      assert.ok(used.has(name), `an alert on ${name}`);
    }
  });

  it("pass Prometheus's own checks: promtool check rules and the unit tests in alerts.test.yml", async function () {
    // Installing Debian's prometheus package (which ships promtool) can take a while once.
    this.timeout(300_000);
    await ensureAptPackages({ promtool: 'prometheus' }, (m) => console.log(m));
    const dir = resolve(ROOT, 'monitoring/prometheus');
    const checked = await runCommand('promtool', ['check', 'rules', 'alerts.yml'], { cwd: dir });
    assert.match(checked, /SUCCESS/);
    const tested = await runCommand('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: dir });
    assert.match(tested, /SUCCESS/);
  });

  it('has a promtool test case per alert where it fires and one where it stays quiet', () => {
    const rules = (
      parse(readFileSync(resolve(ROOT, 'monitoring/prometheus/alerts.yml'), 'utf8')) as {
        groups: Array<{ rules: Rule[] }>;
      }
    ).groups.flatMap((g) => g.rules);
    const tests = parse(
      readFileSync(resolve(ROOT, 'monitoring/prometheus/alerts.test.yml'), 'utf8'),
    ) as {
      tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }>;
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const rule of rules) {
      const mine = cases.filter((c) => c.alertname === rule.alert);
      assert.ok(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${rule.alert}: a case where it fires`,
      );
      assert.ok(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${rule.alert}: a case where it stays quiet`,
      );
    }
  });

  it('every dashboard panel query uses only existing metrics', () => {
    const dashboard = JSON.parse(
      readFileSync(resolve(ROOT, 'monitoring/grafana/onceflow.json'), 'utf8'),
    ) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    assert.ok(dashboard.panels.length > 0);
    for (const panel of dashboard.panels) {
      for (const t of panel.targets) assertKnown(t.expr, panel.title, known);
    }
  });
});
