import {
  readHeader,
  type ParseEnvelopeOptions,
  type PoisonReason,
  type RawMessage,
} from './envelope';
import { REPLAY_OF_HEADER } from './replay-header';
import { frameMessage } from './framing';
import type { DecodedValue } from './message-value';
import { validateData } from './data-schema';
import {
  customIdentity,
  deriveIdentity,
  deriveWorkflowId,
  fingerprint,
  formerIdentityOf,
} from './identity';
import { framingOf, readsRegistryValues, type RouteTable } from './routes';
import {
  boundKeyword,
  markdownCodeWithin,
  MAX_SUMMARY_BYTES,
  truncateText,
} from './temporal-limits';

/** Options of translateMessage; see ParseEnvelopeOptions for `maxBytes` and `keyMismatch`. */
export type TranslateOptions = ParseEnvelopeOptions & {
  /** Turns a customer ID into its CustomerId value (default: as sent); see customer-keyword.ts. */
  customerKeyword?: (customerId: string) => string;
};

/**
 * Values for the Keyword search attributes the Web UI queries on (docs/architecture.md,
 * "Workflows and activities"). `EntityId` is the route's entity (default: the aggregate ID),
 * `CustomerId` the route's customer, when it names one. `Step` belongs to the workflow, not
 * the bridge. Each value fits Temporal's Keyword limits (temporal-limits.ts, boundKeyword):
 * a longer one is a readable head, `~` and a hash.
 */
export interface StartSearchAttributes {
  EventId: string;
  EventType: string;
  EntityId?: string;
  CustomerId?: string;
}

/** The workflow memo: what an operator needs to tie a run back to its event. */
export interface StartMemo {
  identity: string;
  eventId: string;
  eventType: string;
  aggregateId: string;
  aggregateVersion?: number;
  /** Who emitted the event, when its framing says (CloudEvents' `source`). */
  eventSource?: string;
  /** sha256 of the canonical JSON of `data`; compared on an already-started error. */
  fingerprint: string;
}

/** A valid event: everything the consumer loop needs to start (or deduplicate) its workflow. */
export interface StartCommand {
  kind: 'start';
  identity: string;
  /**
   * The identity this event had before its source joined it (identity.ts, formerIdentityOf):
   * the ledger is asked for it too, so an event first seen by an older bridge stays a
   * duplicate. Undefined for most events.
   */
  formerIdentity?: string;
  workflowId: string;
  workflowType: string;
  eventType: string;
  eventId: string;
  aggregateId: string;
  aggregateVersion?: number;
  fingerprint: string;
  /** The validated, normalised data: the workflow's input. */
  data: unknown;
  searchAttributes: StartSearchAttributes;
  memo: StartMemo;
  /** Static summary shown in the Web UI's workflow list; at most MAX_SUMMARY_BYTES. */
  summary: string;
  /** The route's tenant of this event (its fairness key, bounded by the starter); none: unset. */
  tenant?: string;
  /** `replay` when an operator's DLQ replay sent it (the replay header), else `live`. */
  origin: 'live' | 'replay';
}

export interface PoisonCommand {
  kind: 'poison';
  reason: PoisonReason;
  error: string;
}

export type Translation = StartCommand | PoisonCommand;

/** A route's attribute value, when it is a non-empty string. */
function attributeValue(value: string | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Translates one Kafka message into a workflow start or a poison verdict: envelope (read with
 * the framing of the topic's routes), route, data validation, identity, workflow ID,
 * fingerprint. `decoded` is the value as the Schema Registry decoded it, when it was in the
 * wire format. Pure (no I/O, no clock) and never throws, so the consumer loop (and reconcile)
 * can call it on anything a producer sends: an unexpected exception (a bug, a route's
 * summarize throwing) becomes `processing-failed` with its cause, not a consumer restart into
 * the same batch.
 */
export function translateMessage(
  message: RawMessage,
  routes: RouteTable,
  options: TranslateOptions,
  decoded?: DecodedValue,
): Translation {
  try {
    return doTranslate(message, routes, options, decoded);
  } catch (err) {
    const cause = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { kind: 'poison', reason: 'processing-failed', error: `translation threw: ${cause}` };
  }
}

function doTranslate(
  message: RawMessage,
  routes: RouteTable,
  options: TranslateOptions,
  decoded: DecodedValue | undefined,
): Translation {
  const parsed = frameMessage(
    message,
    framingOf(routes),
    options,
    decoded,
    readsRegistryValues(routes),
  );
  if (!parsed.ok) return { kind: 'poison', reason: parsed.reason, error: parsed.error };
  const envelope = parsed.envelope;

  const route = routes.get(envelope.eventType);
  if (!route) {
    return {
      kind: 'poison',
      reason: 'unknown-event-type',
      error: `event type ${JSON.stringify(envelope.eventType)} has no route (known: ${[...routes.keys()].join(', ')})`,
    };
  }

  const validated = validateData(route.dataSchema, envelope.data);
  if (!validated.ok) {
    return {
      kind: 'poison',
      reason: 'validation-failed',
      error: `${envelope.eventType}: ${validated.error}`,
    };
  }
  const data = validated.value;
  const problem = route.checkEvent?.(envelope, data as never);
  if (problem !== undefined)
    return {
      kind: 'poison',
      reason: 'validation-failed',
      error: `${envelope.eventType}: ${problem}`,
    };

  let print: string;
  try {
    // Over the validated data: what the workflow receives is what is compared, so payloads
    // that differ only in ignored fields or trimmed whitespace count as the same.
    print = fingerprint(data);
  } catch (err) {
    return {
      kind: 'poison',
      reason: 'validation-failed',
      error: `data: ${(err as Error).message}`,
    };
  }

  let identity: string;
  if (typeof route.identity === 'function') {
    const own = route.identity(envelope, data as never);
    if (typeof own !== 'string' || own === '')
      return {
        kind: 'poison',
        reason: 'missing-identity',
        error: `${envelope.eventType}: the route's identity function gave no identity`,
      };
    identity = customIdentity(own);
  } else {
    identity = deriveIdentity(envelope, route.identity);
  }
  const formerIdentity = formerIdentityOf(envelope, identity);
  const workflowId = deriveWorkflowId(route.workflowIdPrefix, identity);
  const version = envelope.aggregateVersion;
  const entityId = route.entityId
    ? attributeValue(route.entityId(data as never))
    : envelope.aggregateId;
  const customerId = attributeValue(route.customerId?.(data as never));
  const tenant = route.tenant?.(message, envelope, data);
  return {
    kind: 'start',
    identity,
    ...(formerIdentity !== undefined ? { formerIdentity } : {}),
    workflowId,
    workflowType: route.workflowType,
    eventType: envelope.eventType,
    eventId: envelope.eventId,
    aggregateId: envelope.aggregateId,
    ...(version !== undefined ? { aggregateVersion: version } : {}),
    fingerprint: print,
    data,
    searchAttributes: {
      EventId: boundKeyword(envelope.eventId),
      EventType: boundKeyword(envelope.eventType),
      ...(entityId !== undefined ? { EntityId: boundKeyword(entityId) } : {}),
      ...(customerId !== undefined
        ? { CustomerId: boundKeyword(options.customerKeyword?.(customerId) ?? customerId) }
        : {}),
    },
    memo: {
      identity,
      eventId: envelope.eventId,
      eventType: envelope.eventType,
      aggregateId: envelope.aggregateId,
      ...(version !== undefined ? { aggregateVersion: version } : {}),
      ...(envelope.source !== undefined ? { eventSource: envelope.source } : {}),
      fingerprint: print,
    },
    summary: truncateText(
      route.summarize
        ? route.summarize(data as never)
        : // The aggregate ID's span closes within the first 300 bytes, before any cut.
          `${truncateText(envelope.eventType, 100)} ${markdownCodeWithin(envelope.aggregateId, 200)}${version !== undefined ? ` v${version}` : ''} → ${route.workflowType}`,
      MAX_SUMMARY_BYTES,
    ),
    ...(tenant !== undefined ? { tenant } : {}),
    origin: readHeader(message.headers, REPLAY_OF_HEADER) !== undefined ? 'replay' : 'live',
  };
}
