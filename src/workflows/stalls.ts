// Which steps of a run are waiting or parked right now, and what the operator asked of each.
// Steps may run at once (Promise.all), so a run can have several; the operator handlers write
// requests here and the step runner consumes them. Pure (workflow code).

/** What an operator asked of one stalled step. */
export interface OperatorRequest {
  action: 'retry' | 'resolve';
  /** resolve: the step's result as the operator gives it (`--result`), if any. */
  result?: unknown;
}

export interface Stalls {
  /** Steps waiting (transient cause) or parked (needs an operator) now, by name. */
  readonly current: Map<string, 'waiting' | 'parked'>;
  /** Requests for stalled steps, consumed by the step runner. */
  readonly pending: Map<string, OperatorRequest>;
}

export function createStalls(): Stalls {
  return { current: new Map(), pending: new Map() };
}

/**
 * The steps an operator request acts on: the one it names (if stalled), else every stalled
 * step for a retry (repeating each under its own key), else the only stalled step for a
 * resolve. A resolve that names none while several are stalled acts on nothing: resolving
 * says an effect happened, which an operator must say of one step at a time.
 */
export function targetsOf(
  stalls: Stalls,
  action: OperatorRequest['action'],
  step: string | undefined,
): { steps: string[]; refused?: string } {
  const stalled = [...stalls.current.keys()];
  if (step !== undefined)
    return stalled.includes(step)
      ? { steps: [step] }
      : { steps: [], refused: `step ${step} is not waiting or parked` };
  if (action === 'retry' || stalled.length <= 1) return { steps: stalled };
  return {
    steps: [],
    refused: `several steps are stalled (${stalled.join(', ')}): name the one to resolve`,
  };
}

/** What a step shows while steps are stalled: parked wins over waiting, both over running. */
export function visibleStep(stalls: Stalls, running: string): string {
  const states = [...stalls.current.values()];
  if (states.includes('parked')) return 'needs_attention';
  if (states.includes('waiting')) return 'waiting';
  return running;
}
