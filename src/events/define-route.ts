import type { DataSchema } from './data-schema';
import type { Envelope } from './envelope';
import { resolveFraming, type FramingSpec } from './framing';
import type { IdentityFunction, IdentityStrategy } from './identity';
import type { Route } from './routes';
import { resolveTenant, type TenantSpec } from './tenant';

/** What a team declares for one event type: where it comes from and which workflow it starts. */
export interface RouteSpec<TData> {
  /**
   * The event type (the `event-type` header or body field) this route takes.
   * @example eventType: 'GiftCardBought'
   */
  eventType: string;
  /**
   * Topics it is read from. Default: the topics the bridge is configured with (KAFKA_TOPICS).
   * @example topics: ['gift-cards']
   */
  topics?: readonly string[];
  /**
   * How its events are framed on those topics: onceflow's `'envelope'`, `'cloudevents'`
   * (binary or structured), `'debezium-outbox'` (or either with options), or a function for
   * anything else. The routes of one topic share one framing. Default: `'envelope'`.
   * @example framing: 'cloudevents'
   * @example framing: { kind: 'debezium-outbox', eventType: { field: 'eventType' } }
   * @example framing: (m) => ({ eventType: 'PaymentCaptured', eventId: m.header('id'), aggregateId: (m.value as { paymentId: string }).paymentId, data: m.value })
   */
  framing?: FramingSpec;
  /**
   * Whether its values may be in the Schema Registry's wire format (a zero byte, a 4-byte
   * schema ID, the payload), decoded through SCHEMA_REGISTRY_URL before the framing reads
   * them. `false`: never; a value's leading zero byte is just a byte, read as the framing
   * reads any value (not JSON: `unparseable`), and the registry is never asked. The routes of
   * one topic agree on it. Default: true.
   * @example registry: false
   */
  registry?: boolean;
  /**
   * Validates and normalises `data`: a zod schema, any Standard Schema (valibot, ArkType), or a
   * function returning the decoded value and throwing on bad input. Its output is the
   * workflow's input and is fingerprinted; an event that fails it is dead-lettered
   * `validation-failed` with one line per problem.
   * @example schema: z.object({ cardId: z.string(), amountMinor: z.number().int().positive() })
   */
  schema: DataSchema<TData>;
  /**
   * The event's identity, which is the workflow ID's: `aggregate-version` (`aggregateId@version`,
   * or the event ID when unversioned), `event-id`, or a function. Default: `aggregate-version`.
   * @example identity: 'event-id'
   * @example identity: (event, data) => data.invoiceNumber
   */
  identity?: IdentityStrategy | IdentityFunction<TData>;
  /**
   * The workflow it starts: the name its domain's workflows module exports it under.
   * @example workflow: 'giftCard'
   */
  workflow: string;
  /**
   * First part of the workflow ID, `<prefix>:<identity>`. Default: the event type.
   * @example workflowIdPrefix: 'GiftCard'
   */
  workflowIdPrefix?: string;
  /**
   * The one-line summary the Web UI lists the run with (Markdown; at most 400 bytes, cut
   * beyond). Default: event type, aggregate ID and version, workflow type.
   * @example summary: (d) => `Gift card ${d.cardId} for ${d.amountMinor / 100} EUR`
   */
  summary?: (data: TData) => string;
  /**
   * The `EntityId` search attribute: the business entity the run acts on, what operators
   * search for. Default: the aggregate ID.
   * @example entityId: (d) => d.cardId
   */
  entityId?: (data: TData) => string | undefined;
  /**
   * The `CustomerId` search attribute (stored as a keyed hash when CUSTOMER_ID_SEARCH_ATTRIBUTE
   * says so). Default: not set.
   * @example customerId: (d) => d.buyerId
   */
  customerId?: (data: TData) => string | undefined;
  /**
   * The tenant the event belongs to (a merchant, a customer account): the run's fairness key,
   * so one tenant's flood does not starve the others on Temporal's task queues
   * (docs/production.md, "Fairness"). A field of the validated data, a header, or a function;
   * a value longer than 64 bytes becomes a head, `~` and a hash. An event without one runs in
   * the tenantless share. Default: none (every run in one share).
   * @example tenant: { field: 'merchantId' }
   * @example tenant: { header: 'tenant-id' }
   * @example tenant: (d, e) => d.merchantId ?? e.aggregateId.split('-')[0]
   */
  tenant?: TenantSpec<TData>;
  /**
   * A rule across the envelope and the data that the schema cannot see: what is wrong, or
   * undefined. A broken rule dead-letters the event `validation-failed`. Default: none.
   * @example check: (e, d) => (d.cardId === e.aggregateId ? undefined : 'cardId must be the aggregate ID')
   */
  check?: (envelope: Envelope, data: TData) => string | undefined;
}

/**
 * One route of a domain: an event type, how its data is validated, its identity and the
 * workflow it starts (docs/architecture.md, "Event contract").
 *
 * @example
 * const giftCardBought = defineRoute({
 *   eventType: 'GiftCardBought',
 *   schema: z.object({ cardId: z.string(), amountMinor: z.number().int().positive() }),
 *   identity: 'event-id',
 *   workflow: 'giftCard',
 *   entityId: (d) => d.cardId,
 * });
 */
export function defineRoute<TData>(spec: RouteSpec<TData>): Route {
  return {
    eventType: spec.eventType,
    workflowType: spec.workflow,
    identity: (spec.identity ?? 'aggregate-version') as Route['identity'],
    dataSchema: spec.schema as DataSchema<unknown>,
    workflowIdPrefix: spec.workflowIdPrefix ?? spec.eventType,
    ...(spec.topics ? { topics: [...spec.topics] } : {}),
    ...(spec.framing !== undefined ? { framing: resolveFraming(spec.framing) } : {}),
    ...(spec.registry === false ? { registry: false as const } : {}),
    ...(spec.summary ? { summarize: spec.summary as Route['summarize'] } : {}),
    ...(spec.entityId ? { entityId: spec.entityId as Route['entityId'] } : {}),
    ...(spec.customerId ? { customerId: spec.customerId as Route['customerId'] } : {}),
    ...(spec.check ? { checkEvent: spec.check as Route['checkEvent'] } : {}),
    ...(spec.tenant !== undefined ? { tenant: resolveTenant(spec.tenant) } : {}),
  };
}
