// What the environment-fault tests share: orders to produce, a bridge whose log they read, and
// the two assertions (stalled while the fault lasts; each order started once after the fix).
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type pg from 'pg';
import pino from 'pino';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { startBridge, type RunningBridge } from '../../../src/kafka-bridge/bridge';
import { DEFAULT_ROUTES } from '../../../src/domains';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';

export function orders(n: number, partition?: number) {
  return Array.from({ length: n }, () => {
    const orderId = `o-${randomUUID()}`;
    const record = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { lines: 1 }),
    });
    return partition === undefined ? record : { ...record, partition };
  });
}

export interface LogLine {
  level: number;
  msg: string;
  fault?: string;
}

/** A bridge on the harness' topic whose log lines the test reads. */
export class WatchedBridge {
  readonly lines: LogLine[] = [];
  bridge!: RunningBridge;

  constructor(private readonly h: BridgeHarness) {}

  async start(options: { client?: Client; pool?: pg.Pool } = {}): Promise<this> {
    const log = pino(
      { level: 'info' },
      { write: (line: string) => this.lines.push(JSON.parse(line) as LogLine) },
    );
    this.bridge = await startBridge({
      config: this.h.config,
      kafka: this.h.kafka,
      client: options.client ?? this.h.client,
      pool: options.pool ?? this.h.pool,
      log,
      routes: DEFAULT_ROUTES,
      ledgerSchema: this.h.schema,
      topics: [this.h.topic],
      groupId: this.h.groupId,
      taskQueue: this.h.taskQueue,
      backoff: { initialMs: 50, maxMs: 500 },
    });
    return this;
  }

  private async counter(name: string, labels: Record<string, string>): Promise<number> {
    const metric = this.bridge.metrics.registry.getSingleMetric(name);
    const { values } = await metric!.get();
    return values
      .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
      .reduce((s, v) => s + v.value, 0);
  }

  failedTries = (dependency: string) =>
    this.counter('onceflow_bridge_failed_attempts_total', { dependency });
  retries = (dependency: string, fault: string) =>
    this.counter('onceflow_bridge_transient_retries_total', { dependency, fault });
  deadLettered = () => this.counter('onceflow_bridge_dlq_total', {});

  /** Error lines that name this fault. */
  advice(fault: string): LogLine[] {
    return this.lines.filter((l) => l.level === 50 && l.fault === fault);
  }
}

/** End offsets of the DLQ topic summed (0 when it has no records). */
export async function dlqSize(h: BridgeHarness): Promise<number> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(`${h.topic}.dlq`);
    return offsets.reduce((s, p) => s + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

export interface Stall {
  dependency: 'postgres' | 'temporal' | 'dlq';
  fault: string;
  /** What the error line must say (the fix). */
  fix: RegExp;
  /** Committed offsets when the fault began; none may move while it lasts. */
  committed: Map<number, number>;
  /** Ledger rows when the fault began. */
  ledgerRows: number;
  /** Counts the ledger's rows. Default: the harness' count. */
  countRows?: () => Promise<number>;
}

/**
 * The partition stalls: more failed tries than the 3 a message's own fault gets, nothing
 * dead-lettered, nothing committed past the waiting messages, no ledger row added, the
 * alert's counter rising for this dependency and fault, an error line naming the fix.
 */
export async function assertStalled(
  h: BridgeHarness,
  w: WatchedBridge,
  stall: Stall,
): Promise<void> {
  await waitFor(async () => (await w.failedTries(stall.dependency)) >= 8, {
    timeoutMs: 90_000,
    what: `8 failed tries on ${stall.dependency}`,
  });
  assert.equal(await w.deadLettered(), 0, 'nothing dead-lettered (the environment’s fault)');
  assert.equal(await dlqSize(h).catch(() => 0), 0, 'the DLQ topic is empty');
  assert.deepEqual(await h.committedOffsets(), stall.committed, 'nothing committed meanwhile');
  assert.equal(
    await (stall.countRows ?? (() => h.ledgerCount()))(),
    stall.ledgerRows,
    'no ledger row added meanwhile',
  );
  assert.ok(
    (await w.retries(stall.dependency, stall.fault)) >= 3,
    `onceflow_bridge_transient_retries_total{dependency="${stall.dependency}",fault="${stall.fault}"} rises`,
  );
  const advice = w.advice(stall.fault);
  assert.ok(advice.length > 0, `an error line for ${stall.fault}`);
  assert.match(advice[0]!.msg, stall.fix);
}

/** After the fix: every offset committed, one ledger row and one workflow per order, no DLQ. */
export async function assertEachStartedOnce(
  h: BridgeHarness,
  w: WatchedBridge,
  expected: number,
  client: Client = h.client,
): Promise<void> {
  await h.waitUntilAllCommitted(120_000);
  assert.equal(await h.ledgerCount(), expected, 'one ledger row per order');
  await waitFor(
    async () => (await client.workflow.count(`TaskQueue = '${h.taskQueue}'`)).count === expected,
    { timeoutMs: 30_000, what: `${expected} workflows in visibility` },
  );
  assert.equal(await w.deadLettered(), 0, 'nothing dead-lettered');
  assert.equal(await dlqSize(h), 0, 'the DLQ topic is empty');
}
