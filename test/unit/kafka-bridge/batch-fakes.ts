import type { Batch, IHeaders, KafkaMessage } from 'kafkajs';
import pino from 'pino';
import type { KnownEvent, LedgerRow } from '../../../src/db/ledger-store';
import type { DlqRecord } from '../../../src/events/dlq-message';
import type { BatchLedger } from '../../../src/kafka-bridge/ledger-view';
import { createBridgeMetrics } from '../../../src/kafka-bridge/metrics';
import type { BatchControls, BatchDeps } from '../../../src/kafka-bridge/partition-batch';
import { DEFAULT_ROUTES } from '../../../src/domains';
import type { StartCommand } from '../../../src/events/translate';
import type { SourcePosition, StartOutcome } from '../../../src/kafka-bridge/workflow-starter';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderCancelled, sampleOrderPlaced } from '../../../src/domains/orders/order-samples';

/**
 * Fakes of everything the consumer loop talks to, in the spirit of kafkajs's own runner
 * tests: a ledger in memory, a starter and a DLQ sender that record what they were asked and
 * fail on demand, and controls that record resolves, commits and heartbeats.
 */

/** Errors to throw, in order, before behaving normally (a function decides per call). */
export type FailurePlan = (call: number) => unknown;

export class FakeLedger implements BatchLedger {
  readonly rows = new Map<string, LedgerRow>();
  calls = { findKnown: 0, highestVersions: 0, recordStarted: 0, recordAllStarted: 0 };
  failFindKnown: FailurePlan = () => undefined;
  failRecord: FailurePlan = () => undefined;
  failRecordAll: (call: number, rows: readonly LedgerRow[]) => unknown = () => undefined;

  async findKnown(identities: readonly string[]): Promise<Map<string, KnownEvent>> {
    const err = this.failFindKnown(++this.calls.findKnown);
    if (err) throw err;
    const out = new Map<string, KnownEvent>();
    for (const id of identities) {
      const r = this.rows.get(id);
      if (r)
        out.set(id, {
          eventType: r.eventType,
          fingerprint: r.fingerprint,
          workflowId: r.workflowId,
          runId: r.runId ?? null,
        });
    }
    return out;
  }

  async highestVersions(aggregateIds: readonly string[]): Promise<Map<string, number>> {
    this.calls.highestVersions++;
    const out = new Map<string, number>();
    for (const r of this.rows.values()) {
      if (r.aggregateVersion !== undefined && aggregateIds.includes(r.aggregateId))
        out.set(r.aggregateId, Math.max(out.get(r.aggregateId) ?? 0, r.aggregateVersion));
    }
    return out;
  }

  async recordStarted(row: LedgerRow): Promise<boolean> {
    const err = this.failRecord(++this.calls.recordStarted);
    if (err) throw err;
    if (this.rows.has(row.identity)) return false;
    this.rows.set(row.identity, row);
    return true;
  }

  /** Each call's identities, in order (one INSERT each). */
  readonly batches: string[][] = [];

  /** All or nothing, as one statement is: a refused batch writes no row. */
  /** Awaited inside each recordAllStarted: a test holds the INSERT open until it says so. */
  holdRecordAll: (rows: readonly LedgerRow[]) => Promise<void> = async () => undefined;

  async recordAllStarted(rows: readonly LedgerRow[]): Promise<number> {
    await this.holdRecordAll(rows);
    const err = this.failRecordAll(++this.calls.recordAllStarted, rows);
    if (err) throw err;
    this.batches.push(rows.map((r) => r.identity));
    let inserted = 0;
    for (const row of rows) {
      if (this.rows.has(row.identity)) continue;
      this.rows.set(row.identity, row);
      inserted++;
    }
    return inserted;
  }
}

export interface StartCall {
  cmd: StartCommand;
  source: SourcePosition;
  begunAt: number;
  endedAt?: number;
}

export class FakeStarter {
  readonly calls: StartCall[] = [];
  readonly log: string[] = [];
  fail: (cmd: StartCommand, call: number) => unknown = () => undefined;
  delayMs: (cmd: StartCommand) => number = () => 0;
  /** Awaited inside each call after the delay: a test holds the call open until it says so. */
  hold: (cmd: StartCommand) => Promise<void> = async () => undefined;
  outcome: (cmd: StartCommand) => StartOutcome = (cmd) => ({
    kind: 'started',
    runId: `run-${cmd.workflowId}`,
  });

  readonly start = async (cmd: StartCommand, source: SourcePosition): Promise<StartOutcome> => {
    const call: StartCall = { cmd, source, begunAt: performance.now() };
    this.calls.push(call);
    this.log.push(`begin ${cmd.eventType}`);
    const delay = this.delayMs(cmd);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    await this.hold(cmd);
    const err = this.fail(cmd, this.calls.length);
    call.endedAt = performance.now();
    this.log.push(`end ${cmd.eventType}`);
    if (err) throw err;
    return this.outcome(cmd);
  };
}

export class FakeDlq {
  readonly records: DlqRecord[] = [];
  attempts = 0;
  fail: (record: DlqRecord, attempt: number) => unknown = () => undefined;

  readonly send = async (record: DlqRecord): Promise<void> => {
    const err = this.fail(record, ++this.attempts);
    if (err) throw err;
    this.records.push(record);
  };

  header(i: number, name: string): string | undefined {
    const v = this.records[i]?.message.headers[name];
    return v === undefined ? undefined : String(v);
  }
}

export class FakeControls implements BatchControls {
  running = true;
  owned = true;
  heartbeats = 0;
  readonly resolved: string[] = [];
  readonly commits: string[] = [];
  shouldContinue = () => this.running && this.owned;
  ownsPartition = () => this.owned;
  heartbeat = async () => {
    this.heartbeats++;
  };
  resolveOffset = (offset: string) => {
    this.resolved.push(offset);
  };
  commit = async (offset: string) => {
    this.commits.push(offset);
  };
}

export function fakeDeps(
  parts: { ledger?: FakeLedger; starter?: FakeStarter; dlq?: FakeDlq } = {},
  overrides: Partial<BatchDeps> = {},
) {
  const ledger = parts.ledger ?? new FakeLedger();
  const starter = parts.starter ?? new FakeStarter();
  const dlq = parts.dlq ?? new FakeDlq();
  const deps: BatchDeps = {
    routes: DEFAULT_ROUTES,
    translateOptions: { maxBytes: 64 * 1024 },
    ledger,
    start: starter.start,
    sendToDlq: dlq.send,
    metrics: createBridgeMetrics(),
    log: pino({ level: 'silent' }),
    concurrency: 8,
    backoff: { initialMs: 1, maxMs: 5 },
    now: () => new Date('2026-11-23T12:00:00Z'),
    faultContext: { ledgerSchema: 'ledger', databaseRole: 'bridge', temporalNamespace: 'orders' },
    ...overrides,
  };
  return { deps, ledger, starter, dlq };
}

/** A KafkaMessage as kafkajs hands it to eachBatch. */
export function kafkaMessage(
  offset: number,
  record: { key: string | Buffer | null; value: string | Buffer | null; headers?: IHeaders },
): KafkaMessage {
  const buf = (v: string | Buffer | null) =>
    v === null ? null : Buffer.isBuffer(v) ? v : Buffer.from(v);
  const headers: IHeaders = {};
  for (const [k, v] of Object.entries(record.headers ?? {}))
    if (v !== undefined) headers[k] = Buffer.isBuffer(v) ? v : Buffer.from(String(v));
  return {
    key: buf(record.key),
    value: buf(record.value),
    headers,
    offset: String(offset),
    timestamp: '0',
    attributes: 0,
  } as KafkaMessage;
}

export function orderPlaced(
  orderId: string,
  offset: number,
  version = 1,
  key: string | null = orderId,
) {
  const r = buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: version,
    data: sampleOrderPlaced(orderId),
  });
  return kafkaMessage(offset, { ...r, key });
}

export function orderCancelled(
  orderId: string,
  offset: number,
  version = 2,
  key: string | null = orderId,
) {
  const r = buildEventMessage({
    eventType: 'OrderCancelled',
    aggregateId: orderId,
    aggregateVersion: version,
    data: sampleOrderCancelled(orderId),
  });
  return kafkaMessage(offset, { ...r, key });
}

/**
 * A fetched batch as KafkaJS hands it to eachBatch. `skippedAfter` records follow the last
 * message in the fetch without being handed over (transaction markers, aborted records):
 * `lastOffset()` and the high watermark count them, as KafkaJS's do.
 */
export function batchOf(
  messages: KafkaMessage[],
  topic = 'orders',
  partition = 0,
  skippedAfter = 0,
): Batch {
  const last = messages.at(-1);
  const lastOffset = last ? Number(last.offset) + skippedAfter : -1;
  return {
    topic,
    partition,
    highWatermark: String(lastOffset + 1),
    messages,
    lastOffset: () => String(lastOffset),
  } as unknown as Batch;
}

/** Sum of a counter's values (any labels). */
export async function counterSum(
  metric: { get(): Promise<{ values: Array<{ value: number; labels: Record<string, unknown> }> }> },
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await metric.get();
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((s, v) => s + v.value, 0);
}
