import type { FaultEndpoint } from '../sandbox/faults';
import type { RunningStack } from '../stack/stack';
import {
  restartKafka,
  restartPostgres,
  restartTemporal,
  ServiceNotRestartableError,
} from '../stack/restart';
import type { Fleet } from './fleet';
import type { InjectedFault } from './report';
import { describeFault, faultDetail, WORKER_COUNT, type ScheduledFault } from './schedule';
import { letTimePass, type TimePassesContext, type TimePassesReport } from './time-passes';
import { adminHeaders } from '../../src/reconcile/provider-ledger';
import { applyTopologyFault, withKafka } from './topology-faults';
import { cancelThroughTemporal } from './temporal-cancel';
import { deployRelease, rollBack, type BuildsContext } from './builds';

export interface InjectContext {
  fleet: Fleet;
  stack: RunningStack;
  providersUrl: string;
  /** Bearer token of the providers' admin API (config.providers.adminToken). */
  providersToken?: string;
  seed: number;
  /** Epoch ms the schedule's offsets count from. */
  startedAt: number;
  log: (line: string) => void;
  /** What the time-passes fault forgets and re-reads; the fault is refused without it. */
  memories?: Omit<TimePassesContext, 'fleet' | 'providersUrl' | 'providersToken' | 'log'>;
  /** Each time-passes fault's report, in the order they ended. */
  timePassed?: TimePassesReport[];
  /**
   * The worker entry of each release the `deploy` faults start, release 1 first
   * (harness/chaos/deploy.ts).
   */
  deployEntries?: string[];
  /** The deployment's builds, for the deploys and the rollback (harness/chaos/builds.ts). */
  builds?: BuildsContext;
}

/** The providers refused a fault setting; the run would not test what it claims. */
export class FaultInjectionError extends Error {
  override readonly name = 'FaultInjectionError';
}

// Provider windows may overlap on one endpoint; the admin API takes the whole endpoint setting,
// so the currently open windows are merged per endpoint and the result PUT as one.
const open = new Map<FaultEndpoint, Map<ScheduledFault, object>>();
// While the providers are out there is nobody to PUT to; a restarted process starts with no
// faults, so the windows still open are PUT again when it is back.
let providersOut = false;

async function putFaults(ctx: InjectContext): Promise<void> {
  if (providersOut) return;
  const endpoints: Record<string, object> = {};
  for (const [endpoint, windows] of open)
    endpoints[endpoint] = Object.assign({}, ...windows.values());
  const res = await fetch(`${ctx.providersUrl}/admin/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...adminHeaders(ctx.providersToken) },
    body: JSON.stringify({ seed: ctx.seed, endpoints }),
  });
  if (!res.ok) throw new FaultInjectionError(`PUT /admin/faults: HTTP ${res.status}`);
}

/** Turns every provider fault off (after the schedule, before parked orders are retried). */
export async function clearProviderFaults(ctx: InjectContext): Promise<void> {
  open.clear();
  await putFaults(ctx);
}

// A kill of the bridge and the time-passes fault both stop and start the bridge: one waits for
// the other, so a restart never lands in the middle of a consumer-group reset.
let bridgeTurn: Promise<unknown> = Promise.resolve();
function withBridge<T>(fn: () => Promise<T>): Promise<T> {
  const mine = bridgeTurn.then(fn, fn);
  bridgeTurn = mine.catch(() => undefined);
  return mine;
}

// A deploy restarts every worker: a kill waits for it (and it for a kill), so no worker is
// started twice.
let workersTurn: Promise<unknown> = Promise.resolve();
function withWorkers<T>(fn: () => Promise<T>): Promise<T> {
  const mine = workersTurn.then(fn, fn);
  workersTurn = mine.catch(() => undefined);
  return mine;
}

// Scheduling, not synchronisation: a fault waits for its moment on the run's clock.
const until = (epochMs: number) =>
  new Promise((r) => setTimeout(r, Math.max(0, epochMs - Date.now())));

/** Runs one fault; a fault that observes something (a topology fault) resolves with it. */
async function apply(ctx: InjectContext, f: ScheduledFault): Promise<string | void> {
  switch (f.kind) {
    case 'kill-worker':
      return withWorkers(async () => {
        await ctx.fleet.kill(f.target);
        await until(Date.now() + f.forMs);
        await ctx.fleet.start(f.target);
      });
    case 'deploy': {
      const release = Number(f.target.replace('release-', ''));
      const entry = ctx.deployEntries?.[release - 1];
      const builds = ctx.builds;
      if (!entry || !builds)
        throw new FaultInjectionError(`deploy needs ${f.target}'s code and the deployment`);
      return withWorkers(async () => {
        const seen = await deployRelease(builds, async () => {
          for (let i = 1; i <= WORKER_COUNT; i++) await ctx.fleet.redeploy(`worker-${i}`, entry);
        });
        return `every worker now runs ${f.target}; ${seen}`;
      });
    }
    case 'rollback': {
      const builds = ctx.builds;
      if (!builds) throw new FaultInjectionError('rollback needs the deployment');
      return withWorkers(() => rollBack(builds, ctx.fleet, 'worker-1'));
    }
    case 'kill-bridge':
      return withBridge(async () => {
        await ctx.fleet.kill(f.target);
        await until(Date.now() + f.forMs);
        await ctx.fleet.start(f.target);
      });
    case 'time-passes': {
      const memories = ctx.memories;
      if (!memories) throw new FaultInjectionError("time-passes needs the run's memories");
      const report = await withBridge(() =>
        letTimePass({
          ...memories,
          fleet: ctx.fleet,
          providersUrl: ctx.providersUrl,
          providersToken: ctx.providersToken,
          log: ctx.log,
        }),
      );
      (ctx.timePassed ??= []).push(report);
      return;
    }
    case 'provider-faults': {
      const endpoint = f.target as FaultEndpoint;
      const windows = open.get(endpoint) ?? new Map<ScheduledFault, object>();
      open.set(endpoint, windows.set(f, f.faults ?? {}));
      await putFaults(ctx);
      await until(Date.now() + f.forMs);
      windows.delete(f);
      await putFaults(ctx);
      return;
    }
    case 'provider-outage':
      providersOut = true;
      try {
        await ctx.fleet.kill('providers');
        await until(Date.now() + f.forMs);
        await ctx.fleet.start('providers');
      } finally {
        providersOut = false;
      }
      await putFaults(ctx);
      return;
    case 'kafka-restart':
      return withKafka(() => restartKafka(ctx.stack));
    case 'broker-kill':
    case 'isr-shortfall': {
      const memories = ctx.memories;
      if (!memories) throw new FaultInjectionError(`${f.kind} needs the run's Kafka client`);
      const { kafka, topic, groupId } = memories;
      return applyTopologyFault(
        { stack: ctx.stack, kafka, topic, groupId, log: ctx.log },
        {
          ...f,
          kind: f.kind,
        },
      );
    }
    case 'temporal-restart':
      return restartTemporal(ctx.stack);
    case 'temporal-cancel': {
      const memories = ctx.memories;
      if (!memories) throw new FaultInjectionError("temporal-cancel needs the run's client");
      return cancelThroughTemporal({
        client: memories.client,
        prefix: memories.prefix,
        seed: ctx.seed,
        atMs: f.atMs,
      });
    }
    case 'postgres-restart':
      return restartPostgres(ctx.stack);
  }
}

/** Runs the whole schedule; resolves with what actually happened, when. */
export async function runSchedule(
  ctx: InjectContext,
  schedule: ScheduledFault[],
): Promise<InjectedFault[]> {
  const done: InjectedFault[] = [];
  await Promise.all(
    schedule.map(async (f) => {
      await until(ctx.startedAt + f.atMs);
      const startMs = Date.now() - ctx.startedAt;
      ctx.log(`inject ${describeFault(f)}`);
      let skipped = '';
      let observed = '';
      try {
        observed = (await apply(ctx, f)) ?? '';
      } catch (err) {
        // An external service (KAFKA_BROKERS/DATABASE_URL) is not ours to restart: say so.
        if (!(err instanceof ServiceNotRestartableError)) throw err;
        skipped = ` (skipped: ${err.message})`;
      }
      const endMs = Date.now() - ctx.startedAt;
      const detail = [faultDetail(f), observed].filter(Boolean).join('; ') + skipped;
      done.push({ kind: f.kind, target: f.target, startMs, endMs, detail });
      ctx.log(`done   ${f.kind} ${f.target} after ${((endMs - startMs) / 1000).toFixed(1)} s`);
    }),
  );
  return done.sort((a, b) => a.startMs - b.startMs);
}
