import type { z } from 'zod';
import {
  parseEnvelope,
  type ParseEnvelopeOptions,
  type PoisonReason,
  type RawMessage,
} from './envelope';
import { deriveIdentity, deriveWorkflowId, fingerprint } from './identity';
import type { RouteTable } from './routes';
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
 * "Workflows and activities"). `OrderId`/`CustomerId` are set when `data` carries
 * `orderId`/`customerId` strings. `OrderStep` belongs to the workflow, not the bridge. Each
 * value fits Temporal's Keyword limits (temporal-limits.ts, boundKeyword): a longer one is
 * a readable head, `~` and a hash.
 */
export interface StartSearchAttributes {
  EventId: string;
  EventType: string;
  OrderId?: string;
  CustomerId?: string;
}

/** The workflow memo: what an operator needs to tie a run back to its event. */
export interface StartMemo {
  identity: string;
  eventId: string;
  eventType: string;
  aggregateId: string;
  aggregateVersion?: number;
  /** sha256 of the canonical JSON of `data`; compared on an already-started error. */
  fingerprint: string;
}

/** A valid event: everything the consumer loop needs to start (or deduplicate) its workflow. */
export interface StartCommand {
  kind: 'start';
  identity: string;
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
}

export interface PoisonCommand {
  kind: 'poison';
  reason: PoisonReason;
  error: string;
}

export type Translation = StartCommand | PoisonCommand;

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = 'data';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  return out;
}

function valueAt(data: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v = data;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/**
 * One line per problem, `data.items[0].quantity: must be positive`, so an operator reading
 * `dlq-error` sees every field to fix at once. zod's "expected string, received undefined"
 * becomes "is required".
 */
export function formatValidationError(error: z.ZodError, data: unknown): string {
  return error.issues
    .map((issue) => {
      const missing =
        issue.code === 'invalid_type' &&
        issue.path.length > 0 &&
        valueAt(data, issue.path) === undefined;
      return `${formatPath(issue.path)}: ${missing ? 'is required' : issue.message}`;
    })
    .join('; ');
}

function stringField(data: unknown, field: string): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const v = (data as Record<string, unknown>)[field];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Translates one Kafka message into a workflow start or a poison verdict: envelope, route,
 * data validation, identity, workflow ID, fingerprint. Pure (no I/O, no clock) and never
 * throws, so the consumer loop (and reconcile) can call it on anything a producer sends: an
 * unexpected exception (a bug, a route's summarize throwing) becomes `processing-failed`
 * with its cause, not a consumer restart into the same batch.
 */
export function translateMessage(
  message: RawMessage,
  routes: RouteTable,
  options: TranslateOptions,
): Translation {
  try {
    return doTranslate(message, routes, options);
  } catch (err) {
    const cause = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { kind: 'poison', reason: 'processing-failed', error: `translation threw: ${cause}` };
  }
}

function doTranslate(
  message: RawMessage,
  routes: RouteTable,
  options: TranslateOptions,
): Translation {
  const parsed = parseEnvelope(message, options);
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

  const validated = route.dataSchema.safeParse(envelope.data);
  if (!validated.success) {
    return {
      kind: 'poison',
      reason: 'validation-failed',
      error: `${envelope.eventType}: ${formatValidationError(validated.error, envelope.data)}`,
    };
  }
  const data = validated.data;
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

  const identity = deriveIdentity(envelope, route.identity);
  const workflowId = deriveWorkflowId(route.workflowIdPrefix, identity);
  const version = envelope.aggregateVersion;
  const orderId = stringField(data, 'orderId');
  const customerId = stringField(data, 'customerId');
  return {
    kind: 'start',
    identity,
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
      ...(orderId !== undefined ? { OrderId: boundKeyword(orderId) } : {}),
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
      fingerprint: print,
    },
    summary: truncateText(
      route.summarize
        ? route.summarize(data as never)
        : // The aggregate ID's span closes within the first 300 bytes, before any cut.
          `${truncateText(envelope.eventType, 100)} ${markdownCodeWithin(envelope.aggregateId, 200)}${version !== undefined ? ` v${version}` : ''} → ${route.workflowType}`,
      MAX_SUMMARY_BYTES,
    ),
  };
}
