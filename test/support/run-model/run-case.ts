// Runs one generated case on the emulator, as the world around a run would: the provider and
// the claim store answer per the plan, a cancel arrives, approvers answer waits (a signal
// before the wait, an update while it is open, a refused one first), operators answer every
// park (retry, streams of retries, resolve, resolve with a result, cancel), the worker
// restarts, a deploy of changed code is replayed (and rolled back when the replay fails), and
// Temporal resets the run. Returns every invariant the run broke (judge.ts).
import {
  ApplicationFailure,
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import { createPrng } from '../../../src/util/prng';
import { RUN_FAILED } from '../../../src/workflows/entity-run';
import { runWorkflow } from '../../../src/workflows/define-workflow';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { START } from '../emulator/clock';
import { inputOf, scriptedRuntime, type Closed, type Scripted } from '../emulator/runtime';
import { approveSignal, approveUpdate, definitionOf, OWNER, type Build } from './body';
import { generateCase, randOf, type Case } from './generate';
import { judge } from './judge';
import { createProvider, ENTITY, keyOf } from './provider';

const mainOf = (c: Case, b: Build) => (rt: Parameters<typeof runWorkflow>[2], input: unknown) =>
  runWorkflow(definitionOf(c, b) as never, input as never, rt);

/** The emulator a case runs on (its randomness, its latencies, its world). */
function emulatorOf(c: Case, provider: ReturnType<typeof createProvider>, observe: () => void) {
  const took = randOf(c.seed * 13 + 5);
  return scriptedRuntime(provider.answer, {
    idleTurns: 0,
    rng: createPrng(c.seed * 7 + 1),
    // A settlement's attempt is slow, so a cancel lands while it is in flight now and then.
    attemptMs: (call) =>
      took(call.activity === 'settleClaim' || call.activity === 'settle' ? 30_000 : 400),
    child: provider.child,
    childScript: (call) => ({ ms: (call.workflowId.length % 3) * 1000 }),
    external: (id) => !(c.ownerGone && id === OWNER.workflowId),
    ...(c.latency
      ? { taskLatency: (n: number, rng: () => number) => 1 + Math.floor(rng() * 20) + n / 5 }
      : {}),
    input: inputOf({ id: ENTITY }),
    observe,
  });
}

/** A deploy: build 2 with its change, and whether Temporal flags its replay now. */
function deployOf(c: Case, s: Scripted): { build: Build; flags: boolean } {
  const sent = new Set(
    s
      .completedLog()
      .flatMap((e) =>
        e.commands.flatMap((x) => (x.type === 'activity' && !x.dropped ? [x.key] : [])),
      ),
  );
  const isSent = (name: string) =>
    [...sent].some((k) => k === keyOf(name) || k?.startsWith(`${keyOf(name)}:`));
  const issued = new Set(
    s.log.flatMap((e) => e.commands.flatMap((x) => (x.type === 'activity' ? [x.key] : []))),
  );
  const isIssued = (name: string) =>
    [...issued].some((k) => k === keyOf(name) || k?.startsWith(`${keyOf(name)}:`));
  if (c.deploy?.change === 'input')
    return {
      build: {
        n: 2,
        inputOf: new Set(c.steps.filter((st) => !isIssued(st.name)).map((st) => st.name)),
      },
      flags: false,
    };
  const step = c.steps[randOf(c.seed * 3)(c.steps.length)]?.name;
  if (step === undefined) return { build: { n: 2 }, flags: false };
  return { build: { n: 2, activityOf: step }, flags: isSent(step) };
}

export async function runCase(seed: number, heavy = false): Promise<string[]> {
  const c = generateCase(seed, heavy);
  const bad: string[] = [];
  /** What happened to the run from outside (RUN_MODEL_VERBOSE prints it). */
  const notes: string[] = [];
  const provider = createProvider(c, () => s.log.length, { resets: () => s.resets() });
  // The approver of each update wait sends its answer after every task until one is taken
  // (the run shows one pause at a time; an update no open wait takes is rejected, no event).
  const answering = new Map(Object.entries(c.updates).filter(([, mode]) => mode !== 'never'));
  const s: Scripted = emulatorOf(c, provider, () => {
    for (const [name, mode] of answering) {
      const send = (ok: boolean) => s.update(approveUpdate(name).name, { ok, by: 'approver' });
      if (mode === 'invalid-first') {
        answering.set(name, 'valid');
        void send(false).catch(() => undefined);
      }
      void send(true).then(
        () => answering.delete(name),
        () => undefined,
      );
    }
  });
  let build: Build = { n: 1 };
  const closed = s.start(mainOf(c, build));
  let done: Closed | undefined;
  void closed.then((x) => (done = x));
  for (const name of c.approved)
    s.signalBeforeStart(approveSignal(name).name, { by: `approver of ${name}` });
  const cancel = () =>
    c.cancelBy === 'temporal' ? s.cancel() : s.signal('cancel', { reason: 'model', by: 'model' });
  // A cancel at 0 is in history before the run's first task (it came with the start).
  if (c.cancelAt === 0) cancel();
  else if (c.cancelAt !== undefined) s.at(START + c.cancelAt, cancel);
  for (const at of c.restarts) s.at(START + at, () => void s.restart());
  if (c.deploy)
    s.at(START + c.deploy.at, () => {
      const deploy = deployOf(c, s);
      void s.restart(mainOf(c, deploy.build)).then(() => {
        const flagged = s.status().stuck?.startsWith('nondeterminism') ?? false;
        const what = JSON.stringify({
          ...deploy.build,
          inputOf: [...(deploy.build.inputOf ?? [])],
        });
        if (flagged !== deploy.flags)
          bad.push(
            `deploy of build 2 (${what}): Temporal ${deploy.flags ? 'flags' : 'passes'} its replay, the emulator ${flagged ? 'flagged' : 'passed'} it`,
          );
        notes.push(`deploy ${flagged ? 'flagged, rolled back' : 'replayed, runs on'}`);
        // A deploy that fails its replay is rolled back; one that passes runs on.
        if (flagged) void s.restart(mainOf(c, { n: 1 }));
        else build = deploy.build;
      });
    });
  if (c.reset)
    s.at(START + c.reset.at, () => {
      // A reset of a closed run starts another run: the case judges the one that closed.
      if (s.status().closed) return notes.push('reset skipped: closed');
      const tasks = s.tasks();
      const k = tasks[Math.max(0, tasks.length - 1 - c.reset!.back)];
      if (k === undefined) return;
      notes.push(`reset to task ${k}`);
      void s.reset(k).catch((err: unknown) => bad.push(`reset: ${String(err)}`));
    });
  // An operator's request goes as the run takes it: an update (refused without an event) or
  // a signal.
  const request = (name: string, arg: object) =>
    s.handles(name) === 'update'
      ? void s.update(name, arg).catch(() => undefined)
      : s.signal(name, arg);
  const resolvedWith = new Map<string, { v: number }>();
  const operator = randOf(seed + 1);
  for (let round = 0; !done; round++) {
    await s.idle();
    if (done || s.status().stuck || s.status().closed) break;
    const step = s.query<SagaStatus>(statusQuery.name).parked?.step;
    if (!step) {
      bad.push(
        `idle, not ended and nothing parked (step ${s.query<SagaStatus>(statusQuery.name).step})`,
      );
      break;
    }
    // Operators try things, then resolve; a resolve the claim refuses leaves them a cancel.
    const choice =
      c.operator === 'cancel' && round === 0
        ? 'cancel'
        : round > 8
          ? (['resolve', 'cancel'] as const)[round % 2]!
          : round > 5 || c.operator === 'cancel'
            ? 'resolve'
            : (['retry', 'retry', 'resolve', 'cancel'] as const)[operator(4)]!;
    if (choice === 'retry') {
      const [name, ...item] = step.split(':');
      const rec = provider.keys.get(keyOf(name!, item.length ? item.join(':') : undefined));
      if (rec && !c.forced[name!] && operator(2) === 0) rec.cleared = true;
      const n = round === 0 ? c.stream.n : 1;
      for (let i = 0; i < n; i++)
        s.at(s.now() + i * c.stream.spacedMs, () => request('retryStep', { by: 'operator', step }));
    } else if (choice === 'resolve') {
      const withResult = operator(2) === 0 && !['settle', 'claim'].includes(step);
      const result = { v: operator(7) };
      if (withResult) resolvedWith.set(step, result);
      request('resolveStep', { by: 'operator', step, ...(withResult ? { result } : {}) });
    } else request('cancel', { reason: 'operator', by: 'operator' });
  }
  const status = s.query<SagaStatus>(statusQuery.name);
  const outcome = outcomeOf(done, s.status().stuck);
  if (outcome.err) bad.push(outcome.err);
  const sent = new Set(
    s.commands.flatMap((x) => (x.type === 'activity' && !x.dropped && x.key ? [x.key] : [])),
  );
  // Which children ended as the parent saw them (a child cancelled before its end never
  // completed, whatever its script said): completed, or terminated / timed out (may have acted).
  const kidOf = new Map(
    s.commands.flatMap((x) =>
      x.type === 'child' ? [[x.seq, x.workflowId.slice(x.workflowId.lastIndexOf('/') + 1)]] : [],
    ) as Array<[number, string]>,
  );
  provider.childrenDone.clear();
  for (const entry of s.log)
    for (const job of entry.jobs)
      if (job.type === 'child' && kidOf.has(job.seq)) {
        const cause = (job.value as { cause?: unknown } | undefined)?.cause;
        if (job.ok) provider.childrenDone.add(kidOf.get(job.seq)!);
        else if (cause instanceof TerminatedFailure || cause instanceof TimeoutFailure)
          provider.childrenActed.add(kidOf.get(job.seq)!);
      }
  bad.push(
    ...judge(c, {
      outcome: outcome.outcome,
      reason: outcome.reason,
      provider,
      log: s.log,
      sent,
      closed: done,
      stuck: s.status().stuck,
      // A deploy's flagged replay is the deploy's (rolled back), not the run's.
      taskFailures: s.status().taskFailures.filter((f) => !f.startsWith('nondeterminism')),
      recoveryPoints: status.recoveryPoints,
      operatorActions: status.operatorActions ?? [],
      resolvedWith,
      reset: c.reset !== undefined && s.status().ids.runId !== 'run-1',
      resets: s.resets(),
    }),
  );
  // The whole history replays on the code that ran it last, as a worker restarted now would.
  if (!heavy && !s.status().stuck && !bad.some((b) => b.startsWith('deploy')))
    bad.push(...(await replayed(s.completedLog(), mainOf(c, build))));
  if (process.env.RUN_MODEL_DUMP)
    for (const e of s.log.slice(0, 60))
      process.stdout.write(
        `${e.wft} ${e.at - START} jobs ${e.jobs.map((j) => j.type + ('seq' in j ? j.seq : '') + ('name' in j ? j.name : '')).join(',')} cmds ${e.commands.map((x) => x.type + ('seq' in x ? x.seq : '') + ('activity' in x ? x.activity : '') + (x.dropped ? '(dropped)' : '')).join(',')}\n`,
      );
  if (process.env.RUN_MODEL_DUMP) {
    const counts = [
      'WorkflowTaskFailed',
      'WorkflowTaskCompleted',
      'ActivityTaskScheduled',
      'WorkflowExecutionSignaled',
      'TimerStarted',
      'MarkerRecorded',
      'UpsertWorkflowSearchAttributes',
      'WorkflowPropertiesModified',
      'StartChildWorkflowExecutionInitiated',
    ] as const;
    process.stdout.write(
      `${counts.map((t) => `${t} ${s.eventCount(t)}`).join(', ')}; ${(JSON.stringify(s.status().closed ?? s.status().stuck) ?? 'running').slice(0, 300)}\n`,
    );
  }
  if (process.env.RUN_MODEL_VERBOSE)
    process.stdout.write(
      `seed ${seed}${heavy ? ' (heavy)' : ''}: ${outcome.outcome}, ${s.log.length} activations, ${s.history()} events, ${(s.historyBytes() / 1048576).toFixed(1)} MiB, ${provider.attempts.length} provider attempts${notes.length ? `; ${notes.join(', ')}` : ''}\n`,
    );
  return bad;
}

/** Replays a run's history on a fresh worker: why it does not replay, if it does not. */
async function replayed(log: Scripted['log'], main: ReturnType<typeof mainOf>): Promise<string[]> {
  const again = scriptedRuntime(
    () => {
      throw new Error('a replay attempts nothing');
    },
    { replay: log, idleTurns: 0 },
  );
  void again.start(main, inputOf({ id: ENTITY }));
  try {
    await again.idle();
    return [];
  } catch (err) {
    return [`the history does not replay: ${(err as Error).message}`];
  }
}

/** The run's outcome as its result says, or how Temporal ended it. */
function outcomeOf(
  done: Closed | undefined,
  stuck?: string,
): { outcome: string; reason?: string; err?: string } {
  if (!done) return { outcome: stuck ? 'stuck' : 'running' };
  switch (done.status) {
    case 'completed': {
      const r = done.result as { outcome: string; reason?: string };
      return { outcome: r.outcome, reason: r.reason };
    }
    case 'canceled':
      return done.error instanceof CancelledFailure
        ? { outcome: 'cancelled' }
        : { outcome: 'cancelled', err: `closed Canceled with ${String(done.error)}` };
    case 'failed':
      if (done.error instanceof ApplicationFailure && done.error.type === RUN_FAILED)
        return { outcome: 'failed', reason: done.error.message };
      return { outcome: 'failed', err: `closed Failed with ${String(done.error)}` };
    case 'terminated':
      return { outcome: 'terminated' };
    case 'stuck':
      return { outcome: 'stuck' };
  }
}
