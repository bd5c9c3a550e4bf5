/**
 * One sample of the soak, taken every `--sample` (a minute): the orders whose first run closed
 * in the window (rate), their latency from the moment their event was sent to the moment their
 * run closed (p50, p99), and the resident memory of every process, onceflow's and the stack's.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Client } from '@temporalio/client';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';
import {
  SEARCH_ATTRIBUTE,
  SYSTEM_ATTRIBUTE,
  visibility,
} from '../../src/temporal/search-attributes';
import { percentile } from '../bench/peers/workload';

export interface SoakSample {
  /** End of the window, ms after the soak's start. */
  tMs: number;
  /** 1-minute load average at the end of the window. */
  load: number;
  /** Order runs that closed in the window, and per second. */
  orders: number;
  perSecond: number;
  /** Latency (event sent → run closed) of those runs, ms; NaN when none closed. */
  p50: number;
  p99: number;
  /** VmRSS by process, MiB (a process down at that moment is absent). */
  rssMiB: Record<string, number>;
  /** Every latency of the window, sorted (kept in memory for the windows' p99, not written). */
  latencies: number[];
}

/** VmRSS of a live process, MiB; undefined when it is gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Math.round(Number(line.split(/\s+/)[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The order runs of `prefix` that closed in [from, to), each with its latency: from the time
 * its event was sent (`sentAt`, by workflow ID) to its close. Runs whose event the soak did not
 * send (none should be) are left out.
 */
async function closedOrders(
  client: Client,
  o: { prefix: string; from: Date; to: Date; sentAt: ReadonlyMap<string, number> },
): Promise<number[]> {
  const query = visibility.allOf(
    visibility.equals(SYSTEM_ATTRIBUTE.workflowType, WORKFLOW_TYPE.orderFulfillment),
    visibility.startsWith(SEARCH_ATTRIBUTE.entityId, o.prefix),
    visibility.atOrAfter(SYSTEM_ATTRIBUTE.closeTime, o.from),
    visibility.before(SYSTEM_ATTRIBUTE.closeTime, o.to),
  );
  const latencies: number[] = [];
  for await (const info of client.workflow.list({ query })) {
    const sent = o.sentAt.get(info.workflowId);
    if (sent !== undefined && info.closeTime) latencies.push(info.closeTime.getTime() - sent);
  }
  return latencies.sort((a, b) => a - b);
}

/** The sample of the window [from, to): closes, latencies, and every process's RSS now. */
export async function takeSample(
  client: Client,
  o: {
    prefix: string;
    startedAt: number;
    from: Date;
    to: Date;
    sentAt: ReadonlyMap<string, number>;
    pids: Record<string, number | undefined>;
  },
): Promise<SoakSample> {
  const latencies = await closedOrders(client, o);
  const rss: Record<string, number> = {};
  for (const [name, pid] of Object.entries(o.pids)) {
    const mib = pid === undefined ? undefined : rssMiB(pid);
    if (mib !== undefined) rss[name] = mib;
  }
  const seconds = (o.to.getTime() - o.from.getTime()) / 1000;
  return {
    tMs: o.to.getTime() - o.startedAt,
    load: Number(loadavg()[0]!.toFixed(2)),
    orders: latencies.length,
    perSecond: Number((latencies.length / seconds).toFixed(2)),
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    rssMiB: rss,
    latencies,
  };
}
