/**
 * Did a batch's signal change anything? A batch job only counts delivered signals, and the
 * workflow ignores a retry when the order is no longer parked (another operator, or an
 * earlier retry, got there first). The run's history is the record of what the workflow
 * saw, in the order it saw it: the OrderStep upserts and the signals. So a signal is
 * `signalled` when it found the order in the state the action needs, `skipped` when it did
 * not, and `failed` when it never reached the run (closed before the batch got to it).
 * Read from the server, this needs no worker and no cooperation from old workflow code.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { FORMER_NAME, SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import {
  cancelOrderSignal,
  resolveStepSignal,
  retryStepSignal,
} from '../domains/orders/workflows/order-definitions';
import type { BatchTarget } from './batch-operation';
import { forEachLimited } from '../util/run-limited';

/** What a run's history says, reduced to what the classification needs. */
export type TimelineEntry =
  { kind: 'step'; step: string } | { kind: 'signal'; name: string; identity: string };

export type SignalOutcome = 'signalled' | 'skipped' | 'failed';

/**
 * Where retryStep and resolveStep act: parked, or waiting out a transient cause (the
 * workflow then runs the step again at once instead of at its waiting round's next attempt).
 */
export const ACTIONABLE_STEPS = ['needs_attention', 'waiting'];

/** The operator signals (with the domain's cancel): any of them ends a parked or waiting episode. */
const operatorSignals = (cancel: string) => [retryStepSignal.name, resolveStepSignal.name, cancel];

function decodeKeyword(payload: temporal.api.common.v1.IPayload | null | undefined) {
  if (!payload?.data) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(payload.data).toString('utf8'));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Step upserts and the signals of a history, in order. A run recorded before the generic
 * attributes upserted OrderStep (FORMER_NAME), and one resumed by a newer worker both.
 */
export function timelineOf(events: temporal.api.history.v1.IHistoryEvent[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const stepName = SEARCH_ATTRIBUTE.step.name;
  for (const e of events) {
    const fields =
      e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ??
      e.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields;
    const step = decodeKeyword(fields?.[stepName] ?? fields?.[FORMER_NAME.step]);
    if (step !== undefined) out.push({ kind: 'step', step });
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal) {
      out.push({ kind: 'signal', name: signal.signalName ?? '', identity: signal.identity ?? '' });
    }
  }
  return out;
}

/**
 * Classifies our signal (`name`, sent with `identity`) in a run's timeline.
 * retryStep acts when the order was parked (`needs_attention`) or waiting and no other
 * operator signal arrived since it got there; the cancel signal (`cancel`: the domain's, default
 * the order's cancelOrder) acts when no cancellation arrived before it (the workflow acts on the
 * first one only).
 */
export function classifySignal(
  timeline: TimelineEntry[],
  name: string,
  identity: string,
  cancel: string = cancelOrderSignal.name,
): SignalOutcome {
  const operator = operatorSignals(cancel);
  let step: string | undefined;
  let operatorSignalSinceStep = false;
  let cancelledBefore = false;
  for (const entry of timeline) {
    if (entry.kind === 'step') {
      if (entry.step !== step) operatorSignalSinceStep = false;
      step = entry.step;
      continue;
    }
    if (entry.name === name && entry.identity === identity) {
      if (name === cancel) return cancelledBefore ? 'skipped' : 'signalled';
      return ACTIONABLE_STEPS.includes(step ?? '') && !operatorSignalSinceStep
        ? 'signalled'
        : 'skipped';
    }
    if (operator.includes(entry.name)) operatorSignalSinceStep = true;
    if (entry.name === cancel) cancelledBefore = true;
  }
  return 'failed';
}

/** Counts of a bulk signal command. */
export interface SignalCounts {
  signalled: number;
  skipped: number;
  failed: number;
}

/** Reads every target's history (a few at once) and classifies our signal in it. */
export async function countSignalOutcomes(
  client: Client,
  targets: BatchTarget[],
  name: string,
  identity: string,
  concurrency = 8,
  cancel: string = cancelOrderSignal.name,
): Promise<{ counts: SignalCounts; outcomes: Map<string, SignalOutcome> }> {
  const outcomes = new Map<string, SignalOutcome>();
  await forEachLimited(targets, concurrency, async (t) => {
    const history = await client.workflow
      .getHandle(t.workflowId, t.runId)
      .fetchHistory()
      .catch(() => undefined);
    outcomes.set(
      t.workflowId,
      history ? classifySignal(timelineOf(history.events ?? []), name, identity, cancel) : 'failed',
    );
  });
  const counts: SignalCounts = { signalled: 0, skipped: 0, failed: 0 };
  for (const o of outcomes.values()) counts[o]++;
  return { counts, outcomes };
}
