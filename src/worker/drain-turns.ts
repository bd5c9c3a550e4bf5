// Drains take turns (docs/deploying.md, "Drains take turns"). A process runs at most
// WORKER_MAX_DRAINS drains; a build holding runs keeps its drain while nobody else needs the
// slot, but a run parked for days would otherwise hold it for days, and every other build's
// signals, cancels and timers would wait as long. So, when builds outnumber the slots, each
// refresh (a turn) gives the slots to the builds with work waiting on their task queues, the
// one whose last turn is oldest first. A drain keeps its slot until the next refresh at least
// (one whole turn), then gives it up to such a build, first if it has nothing to do, else if
// its turn began earliest. Pure: the refresh (./build-drains.ts) acts on the plan.

/** What a refresh knows of the builds that need serving, and of the drains it runs. */
export interface TurnInput {
  /** Builds that hold open runs or are current, this worker's own left out. */
  builds: readonly string[];
  /** The deployment's current build, when it is among `builds`: it is served first, always. */
  current?: string;
  /** Open runs per build (the tie-break among builds never served: most first). */
  openRuns: ReadonlyMap<string, number>;
  /** Builds served by a drain as the refresh begins, and the refresh its turn began at. */
  serving: ReadonlyMap<string, number>;
  /** The refresh at which each build's last turn began (its drain may have stopped since). */
  lastTurn: ReadonlyMap<string, number>;
  /** Whether tasks of the build wait on its task queues (true when the server does not say). */
  hasWork(buildId: string): boolean;
  /** WORKER_MAX_DRAINS: drains at once. */
  slots: number;
}

/** How a refresh hands out the slots. */
export interface TurnPlan {
  /**
   * The builds in the order they take a free slot: the current build, builds with work
   * waiting and no drain (oldest turn first), builds served now, then idle builds with no
   * drain (they take a slot nobody else needs).
   */
  order: string[];
  /**
   * The drain that gives its slot to `buildId` when no slot is free, among those `running`
   * that were serving as the refresh began (each has had a whole turn): for the current build
   * or a build with work waiting and no drain, the one with nothing to do first, then the one
   * whose turn began earliest; undefined for any other build.
   */
  yieldFor(buildId: string, running: (buildId: string) => boolean): string | undefined;
  /** Whether builds other than the current one have a slot to take turns in. */
  rotates: boolean;
}

/** Plans one refresh's turns (see the module comment). */
export function planTurns(input: TurnInput): TurnPlan {
  const { current, serving, lastTurn } = input;
  const work = new Map(input.builds.map((b) => [b, input.hasWork(b)]));
  const turnOf = (b: string) => lastTurn.get(b) ?? 0;
  const byTurn = (a: string, b: string) =>
    turnOf(a) - turnOf(b) ||
    (input.openRuns.get(b) ?? 0) - (input.openRuns.get(a) ?? 0) ||
    a.localeCompare(b);
  const others = input.builds.filter((b) => b !== current);
  const waiting = others.filter((b) => !serving.has(b) && work.get(b)).sort(byTurn);
  const served = others.filter((b) => serving.has(b));
  const idle = others.filter((b) => !serving.has(b) && !work.get(b)).sort(byTurn);
  // Nothing to do first, then the drain whose turn began earliest.
  const yielding = [...served].sort(
    (a, b) =>
      Number(work.get(a)) - Number(work.get(b)) ||
      serving.get(a)! - serving.get(b)! ||
      a.localeCompare(b),
  );
  const waits = new Set(current ? [current, ...waiting] : waiting);
  const hasCurrent = current !== undefined && input.builds.includes(current);
  return {
    rotates: input.slots > (hasCurrent ? 1 : 0),
    order: [...(hasCurrent ? [current] : []), ...waiting, ...served, ...idle],
    yieldFor(buildId, running) {
      return waits.has(buildId) ? yielding.find(running) : undefined;
    },
  };
}
