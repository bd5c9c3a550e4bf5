import {
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  type Client,
} from '@temporalio/client';
import type { Priority, SearchAttributePair } from '@temporalio/common';
import { priorityOf } from '../temporal/run-priority';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import type { EventWorkflowInput } from '../events/workflow-input';
import { classifyError } from './classify-error';
import { classifyAlreadyStarted } from './dedup';
import { MAX_DETAILS_BYTES, truncateText } from '../events/temporal-limits';
import type { StartCommand } from '../events/translate';
import { markdownCode } from '../util/shell-quote';
import { activeTraceId, traceLinkOf } from '../tracing/active';

export type StartOutcome =
  | { kind: 'started'; runId: string }
  | { kind: 'duplicate'; runId: string | null }
  | { kind: 'conflict'; error: string }
  /** Temporal refused this particular start (e.g. invalid argument): the message's fault. */
  | { kind: 'rejected'; error: string };

export interface SourcePosition {
  topic: string;
  partition: number;
  offset: string;
}

function searchAttributesOf(cmd: StartCommand): SearchAttributePair[] {
  const sa = cmd.searchAttributes;
  const pairs: SearchAttributePair[] = [
    { key: SEARCH_ATTRIBUTE.eventId, value: sa.EventId },
    { key: SEARCH_ATTRIBUTE.eventType, value: sa.EventType },
  ];
  if (sa.EntityId) pairs.push({ key: SEARCH_ATTRIBUTE.entityId, value: sa.EntityId });
  if (sa.CustomerId) pairs.push({ key: SEARCH_ATTRIBUTE.customerId, value: sa.CustomerId });
  return pairs;
}

/**
 * Static details in the Web UI: the event's identity and where it was consumed; at most
 * MAX_DETAILS_BYTES (Temporal's limit), which bounded IDs keep it far below anyway. The UI
 * renders them as Markdown: IDs the producer chose are code spans that no backtick can close
 * (the event type is a checked name, the topic one of ours). With tracing on, the order's
 * trace: its ID, linked to the trace viewer when ONCEFLOW_TRACE_URL is set (the ID is hex).
 */
export function detailsOf(
  cmd: StartCommand,
  source: SourcePosition,
  trace?: { traceId: string; link?: string },
  priority?: Priority,
): string {
  return truncateText(
    [
      `**event** ${cmd.eventType} ${markdownCode(cmd.eventId)}`,
      `**identity** ${markdownCode(cmd.identity)}`,
      `**source** ${source.topic} / partition ${source.partition} / offset ${source.offset}`,
      ...(priority
        ? [
            `**priority** ${priority.priorityKey}${priority.fairnessKey ? ` · **tenant** ${markdownCode(priority.fairnessKey)}` : ''}`,
          ]
        : []),
      `**fingerprint** ${markdownCode(cmd.fingerprint)}`,
      ...(trace
        ? [`**trace** ${trace.link ? `[${trace.traceId}](${trace.link})` : trace.traceId}`]
        : []),
    ].join('\n\n'),
    MAX_DETAILS_BYTES,
  );
}

/** The trace detailsOf wrote into a workflow's details (ID and link), or undefined. */
export function traceOfDetails(
  details: string | undefined,
): { traceId: string; link?: string } | undefined {
  const m = /\*\*trace\*\* (?:\[([0-9a-f]{32})\]\(([^)\s]+)\)|([0-9a-f]{32}))/.exec(details ?? '');
  if (!m) return undefined;
  return m[3] ? { traceId: m[3] } : { traceId: m[1]!, link: m[2] };
}

/**
 * gRPC INVALID_ARGUMENT: the request itself is wrong, retrying cannot help; unless
 * classifyError knows it for the namespace's fault (a search attribute the bridge sets is not
 * registered), which an operator fixes and the bridge waits out.
 */
function isMessageFault(err: unknown): boolean {
  if (!(err instanceof ServiceError)) return false;
  const c = classifyError(err);
  return c.kind === 'permanent' && c.source === 'temporal' && c.code === 'INVALID_ARGUMENT';
}

/**
 * Starts the workflow of one event, with the event identity as workflow ID, REJECT_DUPLICATE
 * and conflict policy FAIL. "Already started" is a deduplication, not an error: the running
 * or closed run's memo fingerprint tells a duplicate from an identity conflict. Any other
 * error is thrown for the caller to retry (Temporal unavailable).
 */
export async function startOrDeduplicate(
  client: Client,
  taskQueue: string,
  cmd: StartCommand,
  source: SourcePosition,
  options: {
    /** ONCEFLOW_TRACE_URL: the trace link in the workflow's details. Default: none. */
    traceUrl?: string;
    /**
     * A bridge in BRIDGE_MODE=backfill: its runs start behind live traffic. Default: false
     * (a live event, or a DLQ replay when the message carries the replay header).
     */
    backfill?: boolean;
  } = {},
): Promise<StartOutcome> {
  const traceId = activeTraceId();
  // Temporal's priority: the route's tenant is the fairness key, the origin the priority key
  // (activities and children inherit both).
  const priority = priorityOf(options.backfill ? 'backfill' : cmd.origin, cmd.tenant);
  const trace = traceId ? { traceId, link: traceLinkOf(traceId, options.traceUrl) } : undefined;
  const input: EventWorkflowInput<unknown> = {
    data: cmd.data,
    event: {
      eventId: cmd.eventId,
      eventType: cmd.eventType,
      identity: cmd.identity,
      aggregateId: cmd.aggregateId,
      aggregateVersion: cmd.aggregateVersion,
      fingerprint: cmd.fingerprint,
      source,
    },
  };
  try {
    const handle = await client.workflow.start(cmd.workflowType, {
      workflowId: cmd.workflowId,
      taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
      memo: { ...cmd.memo, source },
      typedSearchAttributes: searchAttributesOf(cmd),
      staticSummary: cmd.summary,
      staticDetails: detailsOf(cmd, source, trace, priority),
      priority,
    });
    return { kind: 'started', runId: handle.firstExecutionRunId };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      const description = await client.workflow.getHandle(cmd.workflowId).describe();
      const startedFingerprint = description.memo?.fingerprint;
      const verdict = classifyAlreadyStarted(
        cmd.fingerprint,
        typeof startedFingerprint === 'string' ? startedFingerprint : undefined,
      );
      if (verdict === 'duplicate') return { kind: 'duplicate', runId: description.runId };
      return {
        kind: 'conflict',
        error: `identity ${cmd.identity} already runs as workflow ${cmd.workflowId} with payload fingerprint ${String(startedFingerprint)}; this payload's fingerprint is ${cmd.fingerprint}`,
      };
    }
    if (isMessageFault(err)) return { kind: 'rejected', error: (err as Error).message };
    throw err;
  }
}
