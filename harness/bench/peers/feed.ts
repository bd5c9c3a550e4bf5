import type { Producer } from 'kafkajs';
import type { KafkaRecord } from '../../../src/events/event-message';
import { generateOrderStream } from '../../tools/order-stream';

/** The stream's defects, the same for every system (issue 14). */
export const STREAM_SHAPE = { duplicateRate: 0.2, resendRate: 0.02 } as const;

/** One order's records in stream order: its placement, a duplicate delivery, a resend. */
export interface FeedOrder {
  orderId: string;
  totalMinor: number;
  records: KafkaRecord[];
}

const CHUNK = 500;

/**
 * An endless, deterministic order stream (harness/tools/order-stream with 20 % duplicate
 * deliveries and a fresh-ID resend for 2 % of orders), generated in chunks of CHUNK orders
 * from `seed`. Every system of a run gets a feed with the same seed, so the same records in
 * the same order, however far it gets; only the order-ID prefix differs (`prefix`), so the
 * systems' effects never meet.
 */
export class OrderFeed {
  private chunk = 0;
  private readonly pending: FeedOrder[] = [];
  /** Every order taken so far → its total (what the invariant check expects). */
  readonly totals = new Map<string, number>();
  readonly counts = { orders: 0, records: 0, duplicates: 0, resends: 0 };
  /** Every record sent, for the duplicate phase (re-deliveries of finished orders). */
  readonly sent: KafkaRecord[] = [];

  constructor(
    private readonly seed: number,
    private readonly prefix: string,
  ) {}

  /** The next `n` orders of the stream. */
  take(n: number): FeedOrder[] {
    while (this.pending.length < n) this.generate();
    const out = this.pending.splice(0, n);
    for (const o of out) {
      this.totals.set(o.orderId, o.totalMinor);
      this.counts.orders++;
      this.counts.records += o.records.length;
    }
    return out;
  }

  private generate(): void {
    const chunk = this.chunk++;
    const stream = generateOrderStream({
      orders: CHUNK,
      seed: this.seed * 1000 + chunk,
      prefix: `${this.prefix}-${chunk}`,
      ...STREAM_SHAPE,
    });
    this.counts.duplicates += stream.counts.duplicates;
    this.counts.resends += stream.counts.resends;
    const byOrder = new Map<string, KafkaRecord[]>();
    for (const r of stream.records) {
      const list = byOrder.get(r.key);
      if (list) list.push(r);
      else byOrder.set(r.key, [r]);
    }
    for (const [orderId, data] of stream.orders) {
      this.pending.push({ orderId, totalMinor: data.totalMinor, records: byOrder.get(orderId)! });
    }
  }

  /** Sends orders' records (acks from all replicas); `partition` pins them to one partition. */
  async send(
    producer: Producer,
    topic: string,
    orders: FeedOrder[],
    partition?: number,
  ): Promise<void> {
    if (orders.length === 0) return;
    const records = orders.flatMap((o) => o.records);
    this.sent.push(...records);
    const now = String(Date.now());
    // Batches of 500 keep a request well under the broker's size limit.
    for (let i = 0; i < records.length; i += 500) {
      await producer.send({
        topic,
        acks: -1,
        messages: records.slice(i, i + 500).map((r) => ({
          ...r,
          timestamp: now,
          ...(partition !== undefined ? { partition } : {}),
        })),
      });
    }
  }
}
