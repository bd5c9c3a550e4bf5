import {
  ATTENTION_MEMO,
  type Attention,
  type OrderStatus,
  type StepName,
} from '../domains/orders/workflows/order-definitions';

/**
 * Why an order waits or is parked, as `orders show` prints it. Two sources say the same: the
 * live `orderStatus` query (needs a worker) and the workflow memo `attention`, which the
 * workflow writes at the same moments and the server returns with describe() even while no
 * worker runs, the moment an operator most needs it.
 */
export interface AttentionView {
  state: 'waiting' | 'parked';
  step: StepName;
  /** The last failure: type and message. */
  cause: string;
  /** When the step first failed in this episode (ISO). */
  since: string;
  /** Waiting: until when at most (ISO), then it parks. */
  until?: string;
  /** Waiting: attempts of its waiting round so far (Temporal's pending activity). */
  attempt?: number;
  /** Waiting: when the next attempt starts (ISO; Temporal's pending activity). */
  nextTryAt?: string;
  /** The workflow's own words on what to do (memo only; Markdown code spans). */
  action?: string;
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** The memo `attention` of a run, or undefined when it has none (or not of this shape). */
export function attentionFromMemo(
  memo: Record<string, unknown> | undefined,
): AttentionView | undefined {
  const a = memo?.[ATTENTION_MEMO] as Partial<Record<keyof Attention, unknown>> | undefined;
  if (!a || (a.state !== 'waiting' && a.state !== 'parked')) return undefined;
  if (!isString(a.step) || !isString(a.cause) || !isString(a.since)) return undefined;
  return {
    state: a.state,
    step: a.step as StepName,
    cause: a.cause,
    since: a.since,
    until: isString(a.until) ? a.until : undefined,
    attempt: typeof a.attempt === 'number' ? a.attempt : undefined,
    nextTryAt: isString(a.nextTryAt) ? a.nextTryAt : undefined,
    action: isString(a.action) ? a.action : undefined,
  };
}

/** What describe() says of one pending activity (the fields read here). */
export interface PendingActivityView {
  attempt?: number | null;
  nextAttemptScheduleTime?: { seconds?: unknown; nanos?: number | null } | null;
  lastFailure?: unknown;
}

const isoOf = (t: PendingActivityView['nextAttemptScheduleTime']) =>
  t?.seconds != null
    ? new Date(Number(t.seconds) * 1000 + (t.nanos ?? 0) / 1e6).toISOString()
    : undefined;

/**
 * A waiting step's attempts and next try, as Temporal counts them: its waiting round is one
 * activity that Temporal retries, so the pending activity that is retrying says both. Only
 * when one pending activity is retrying (steps at once may wait together: then neither).
 */
export function withPendingAttempt(
  attention: AttentionView | undefined,
  pending: readonly PendingActivityView[] | null | undefined,
): AttentionView | undefined {
  if (attention?.state !== 'waiting' || attention.attempt !== undefined) return attention;
  const retrying = (pending ?? []).filter((p) => (p.attempt ?? 1) > 1 || p.lastFailure);
  if (retrying.length !== 1) return attention;
  const p = retrying[0]!;
  return {
    ...attention,
    ...(p.attempt ? { attempt: p.attempt } : {}),
    ...(isoOf(p.nextAttemptScheduleTime) ? { nextTryAt: isoOf(p.nextAttemptScheduleTime) } : {}),
  };
}

/** The same from the live status query. */
export function attentionFromStatus(status: OrderStatus): AttentionView | undefined {
  if (status.waiting) {
    const { step, cause, since, until } = status.waiting;
    return { state: 'waiting', step, cause, since, ...(until ? { until } : {}) };
  }
  if (status.parked) {
    const { step, error, since } = status.parked;
    return { state: 'parked', step, cause: error, since };
  }
  return undefined;
}

/**
 * Markdown code spans (`` `x` ``, as markdownCode writes them) shown as their text, for a
 * terminal: the workflow writes its action for the Web UI, which renders Markdown.
 */
export function plainOfMarkdown(text: string): string {
  return text.replace(/(`+)( ?)(.*?)\2\1(?!`)/g, (_, _fence, _pad, inner: string) => inner);
}

/** `4m 12s`: a duration an operator reads at a glance. */
export function formatAge(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** `2026-…Z (4m 12s ago)`. */
function since(iso: string, now: number): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? `${iso} (${formatAge(now - ms)} ago)` : iso;
}

/** The next try: in how long, or overdue (no worker has run the timer's task yet). */
function nextTry(iso: string, now: number): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return ms >= now
    ? `${iso} (in ${formatAge(ms - now)})`
    : `${iso} (due ${formatAge(now - ms)} ago: is a worker running?)`;
}

/** The `waiting:` or `parked:` line of `orders show`. */
export function attentionLine(a: AttentionView, now = Date.now()): [string, string] {
  const attempt = a.attempt !== undefined ? `, attempt ${a.attempt}` : '';
  if (a.state === 'waiting') {
    const next = a.nextTryAt ? `, next try ${nextTry(a.nextTryAt, now)}` : '';
    const until = a.until ? `, until ${a.until} at most` : '';
    return ['waiting', `${a.step} since ${since(a.since, now)}${attempt}${next}${until}`];
  }
  return ['parked', `${a.step} since ${since(a.since, now)}${attempt}`];
}

/** Where `orders show` learnt why the order waits or is parked. */
export interface SeenAttention {
  source: 'query' | 'memo' | 'none' | 'closed';
  attention?: AttentionView;
  /** The `status from:` line. */
  detail: string;
}

/**
 * The live status query when a worker answers it; else the memo `attention`, which the
 * server returns with describe() while no worker runs (a waiting order's cause, since when,
 * attempt and next try; a parked order's action).
 */
export function attentionOf(
  running: boolean,
  live: OrderStatus | { error: string } | undefined,
  memo: Record<string, unknown> | undefined,
  pending?: readonly PendingActivityView[] | null,
): SeenAttention {
  if (!running || !live) return { source: 'closed', detail: 'the closed run (describe, result)' };
  if (!('error' in live)) {
    return {
      source: 'query',
      attention: withPendingAttempt(attentionFromStatus(live), pending),
      detail: 'the orderStatus query (live, a worker answered)',
    };
  }
  const attention = withPendingAttempt(attentionFromMemo(memo), pending);
  return attention
    ? {
        source: 'memo',
        attention,
        detail: `the workflow memo \`attention\` (the status query did not answer: ${live.error})`,
      }
    : {
        source: 'none',
        detail: `search attributes only (the status query did not answer: ${live.error}; no memo \`attention\`)`,
      };
}
