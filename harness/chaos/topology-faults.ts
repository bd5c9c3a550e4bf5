import type { Admin, Kafka } from 'kafkajs';
import { ensureTopics } from '../../src/kafka/topics';
import { startKafkaBroker, stopKafkaBroker } from '../stack/restart';
import type { RunningStack } from '../stack/stack';
import type { StackTopology } from '../stack/topology';
import { createPrng } from '../../src/util/prng';
import { waitFor } from '../../src/util/wait';
import type { ScheduledFault, TopologyFaultKind } from './schedule';

/**
 * The faults only the production topology has (ONCEFLOW_KAFKA_BROKERS=3): a broker crash,
 * which moves partition leaders and the consumer group's coordinator, and two brokers down at
 * once, which leaves every partition one in-sync replica short of `min.insync.replicas` (2),
 * so acks=all writes and offset commits are refused until one is back. The Temporal server's
 * kill and restart under load is the schedule's `temporal-restart`, which restarts whichever
 * Temporal the stack runs.
 */
export type { TopologyFaultKind };

/** How long a killed broker stays dead. Longer than the brokers' session timeout (9 s), so the controller fences it and leaders move. */
export const BROKER_DEAD_MS = { min: 12_000, max: 20_000 };
/** How long two brokers stay dead: writes are refused for about this long. */
export const ISR_SHORTFALL_MS = { min: 15_000, max: 30_000 };
/**
 * How long a fault waits for full ISRs, before it kills (so it never takes the last in-sync
 * copy) and after its restarts. Waiting longer is not a violation: on a loaded machine a
 * restarted broker can take minutes to catch up, so the fault says so and the run goes on.
 */
const ISR_FULL_TIMEOUT_MS = 5 * 60_000;

/** A topology fault cannot run here, or did not do what it claims. */
export class TopologyFaultError extends Error {
  override readonly name = 'TopologyFaultError';
}

/**
 * The topology faults of a chaos run, drawn from their own seeded stream so the base
 * schedule (buildSchedule) of a seed stays the same on every topology. Only the three-broker
 * cluster gets them: the single broker has no replica to move to. The broker kill comes
 * early, before the schedule's full Kafka restart (20–40 % of the run); the ISR shortfall
 * after it, while events are still being published (the first 60 %). A lock keeps the
 * Kafka faults from overlapping however long each takes.
 */
export function buildTopologySchedule(
  seed: number,
  durationMs: number,
  topology: StackTopology,
): ScheduledFault[] {
  if (topology.kafkaBrokers < 3) return [];
  const rnd = createPrng(seed ^ 0x70b0);
  const at = (from: number, to: number) => Math.round(durationMs * (from + rnd() * (to - from)));
  const span = ({ min, max }: { min: number; max: number }) =>
    Math.round(min + rnd() * (max - min));
  const survivor = 1 + Math.floor(rnd() * 3);
  const downed = [1, 2, 3].filter((id) => id !== survivor);
  return [
    // The coordinator's broker: its death moves the group and the partitions it leads.
    {
      atMs: at(0.06, 0.15),
      kind: 'broker-kill',
      target: 'coordinator',
      forMs: span(BROKER_DEAD_MS),
    },
    {
      atMs: at(0.42, 0.52),
      kind: 'isr-shortfall',
      target: downed.map((id) => `kafka-${id}`).join(','),
      forMs: span(ISR_SHORTFALL_MS),
    },
  ];
}

/** What a topology fault needs of the run: the stack, a Kafka client, the source topic and the bridge's group. */
export interface TopologyFaultContext {
  stack: RunningStack;
  kafka: Kafka;
  topic: string;
  groupId: string;
  log: (line: string) => void;
}

// Kafka faults one at a time (these and the schedule's full restart): a broker restarted by
// one while another stops the cluster would be recorded twice or not at all.
let kafkaTurn: Promise<unknown> = Promise.resolve();
/** Runs `fn` when no other Kafka fault of this run is in progress. */
export function withKafka<T>(fn: () => Promise<T>): Promise<T> {
  const mine = kafkaTurn.then(fn, fn);
  kafkaTurn = mine.catch(() => undefined);
  return mine;
}

// Scheduling, not synchronisation: a dead broker stays dead for the fault's time.
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Java's String.hashCode, which Kafka uses to place a group on an offsets partition. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** The __consumer_offsets partition that holds `groupId` (Kafka's Utils.abs(hash) % n). */
export function offsetsPartitionOf(groupId: string, partitions: number): number {
  const h = javaStringHash(groupId);
  return (h === -2147483648 ? 0 : Math.abs(h)) % partitions;
}

type PartitionInfo = { partitionId: number; leader: number; isr: number[]; replicas: number[] };

/** `fn` with an admin client of its own: one that knew a killed broker keeps asking it. */
async function withAdmin<T>(
  ctx: TopologyFaultContext,
  fn: (admin: Admin) => Promise<T>,
): Promise<T> {
  const admin = ctx.kafka.admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}

async function partitionsOf(admin: Admin, topic: string): Promise<PartitionInfo[]> {
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
  return topics[0]!.partitions;
}

/** The broker that coordinates `groupId`: the leader of its offsets partition. */
async function coordinatorOf(admin: Admin, groupId: string): Promise<number> {
  const offsets = await partitionsOf(admin, '__consumer_offsets');
  const p = offsetsPartitionOf(groupId, offsets.length);
  return offsets.find((o) => o.partitionId === p)!.leader;
}

/**
 * Waits until every partition of `topics` has all its replicas in sync; resolves with how
 * long that took, or with a note once ISR_FULL_TIMEOUT_MS passed. Each check asks a new admin
 * client: one that knew a broker that was just killed keeps asking it for metadata.
 */
async function waitForFullIsr(ctx: TopologyFaultContext, topics: string[]): Promise<string> {
  const started = Date.now();
  try {
    await waitFor(
      () =>
        withAdmin(ctx, async (admin) => {
          for (const t of topics) {
            if (!(await partitionsOf(admin, t)).every((p) => p.isr.length === p.replicas.length))
              return false;
          }
          return true;
        }),
      {
        timeoutMs: ISR_FULL_TIMEOUT_MS,
        intervalMs: 1000,
        what: `full ISRs of ${topics.join(', ')}`,
      },
    );
    return `full ISRs after ${((Date.now() - started) / 1000).toFixed(1)} s`;
  } catch (err) {
    const note = `ISRs not yet full after ${ISR_FULL_TIMEOUT_MS / 1000} s (${(err as Error).message})`;
    ctx.log(`       ${note}`);
    return note;
  }
}

const leadersOf = async (admin: Admin, topic: string) =>
  (await partitionsOf(admin, topic)).map((p) => p.leader);

/**
 * Kills the broker that coordinates the bridge's group (SIGKILL), waits until the controller
 * has moved every partition it led of the source topic and the group's coordinator, keeps it
 * dead for `forMs`, starts it again and waits until its replicas are back in every ISR.
 */
async function killCoordinatorBroker(ctx: TopologyFaultContext, forMs: number): Promise<string> {
  const watched = [ctx.topic, '__consumer_offsets'];
  await waitForFullIsr(ctx, watched);
  const { victim, led } = await withAdmin(ctx, async (admin) => {
    const c = await coordinatorOf(admin, ctx.groupId);
    return { victim: c, led: (await leadersOf(admin, ctx.topic)).filter((l) => l === c).length };
  });
  const killedAt = Date.now();
  await stopKafkaBroker(ctx.stack, victim, 'SIGKILL');
  const coordinator = await waitFor(
    () =>
      withAdmin(ctx, async (admin) => {
        const c = await coordinatorOf(admin, ctx.groupId);
        const leaders = await leadersOf(admin, ctx.topic);
        return c !== victim && !leaders.includes(victim) ? c : false;
      }),
    { timeoutMs: 60_000, intervalMs: 500, what: `leaders to move off broker ${victim}` },
  );
  const movedIn = Date.now() - killedAt;
  await pause(Math.max(0, killedAt + forMs - Date.now()));
  await startKafkaBroker(ctx.stack, victim);
  const settled = await waitForFullIsr(ctx, watched);
  return `broker ${victim} killed: coordinator ${victim}→${coordinator}, ${led} leader(s) of ${ctx.topic} moved in ${(movedIn / 1000).toFixed(1)} s; ${settled}`;
}

/**
 * Kills two brokers at once, checks that an acks=all write is refused with
 * NOT_ENOUGH_REPLICAS (min.insync.replicas not met, on a probe topic of its own so the run's
 * stream stays as published), keeps them dead for `forMs`, then starts both again and waits
 * for full ISRs.
 */
async function shortOfInsyncReplicas(
  ctx: TopologyFaultContext,
  target: string,
  forMs: number,
): Promise<string> {
  const ids = target.split(',').map((name) => Number(name.replace(/^kafka-/, '')));
  const probe = `${ctx.topic}_isr_probe`;
  await ensureTopics(ctx.kafka, { topics: [probe], partitions: 1 });
  await waitForFullIsr(ctx, [ctx.topic, probe]);
  const producer = ctx.kafka.producer({ retry: { retries: 0 }, allowAutoTopicCreation: false });
  await producer.connect();
  const killedAt = Date.now();
  let refusedAfterMs: number;
  try {
    for (const id of ids) await stopKafkaBroker(ctx.stack, id, 'SIGKILL');
    await waitFor(
      async () => {
        try {
          await producer.send({
            topic: probe,
            acks: -1,
            timeout: 5000,
            messages: [{ value: 'p' }],
          });
          return false; // still accepted: the dead brokers are not fenced yet
        } catch (err) {
          return /NOT_ENOUGH_REPLICAS/.test(errorTypes(err).join(' '));
        }
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'NOT_ENOUGH_REPLICAS with two brokers dead' },
    );
    refusedAfterMs = Date.now() - killedAt;
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
  await pause(Math.max(0, killedAt + forMs - Date.now()));
  for (const id of ids) await startKafkaBroker(ctx.stack, id);
  const upAfterMs = Date.now() - killedAt;
  const settled = await waitForFullIsr(ctx, [ctx.topic, '__consumer_offsets']);
  return `brokers ${ids.join(', ')} killed: acks=all refused (NOT_ENOUGH_REPLICAS) from ${(refusedAfterMs / 1000).toFixed(1)} s to ${(upAfterMs / 1000).toFixed(1)} s; ${settled}`;
}

/** The KafkaJS error types of an error and its causes (`NOT_ENOUGH_REPLICAS`, ...). */
function errorTypes(err: unknown): string[] {
  const types: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current && depth < 8; depth++) {
    const e = current as { type?: unknown; cause?: unknown; originalError?: unknown };
    if (typeof e.type === 'string') types.push(e.type);
    current = e.cause ?? e.originalError;
  }
  return types;
}

/** Runs one topology fault; resolves with what it observed, for the run's report. */
export async function applyTopologyFault(
  ctx: TopologyFaultContext,
  f: ScheduledFault & { kind: TopologyFaultKind },
): Promise<string> {
  return withKafka(async () => {
    const note =
      f.kind === 'broker-kill'
        ? await killCoordinatorBroker(ctx, f.forMs)
        : await shortOfInsyncReplicas(ctx, f.target, f.forMs);
    ctx.log(`       ${note}`);
    return note;
  });
}
