import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Kafka, KafkaMessage } from 'kafkajs';
import type pg from 'pg';
import { dlqTopicOf } from '../events/dlq-topic';
import { readDlqHeaders } from '../events/dlq-message';
import { HEADER } from '../events/envelope';
import { readsRegistryValues, routesOfTopic, type RouteTable } from '../events/routes';
import { firstHeaderText } from '../events/headers';
import type { DecodedValue } from '../events/message-value';
import { registryFramingOf } from '../events/registry-framing';
import { translateMessage, type TranslateOptions, type Translation } from '../events/translate';
import type { RegistryDecoder } from '../kafka/registry-decoder';
import { decodeOrUnknown } from './registry-values';
import { classifyDiscrepancies, countByClass, DEFAULT_STUCK_AFTER_MS } from './classify';
import {
  formatCoordinates,
  type Discrepancy,
  type DiscrepancyClass,
  type DlqEntry,
  type ReconcileFacts,
  type TopicEvent,
  type TopicPoison,
} from './facts';
import {
  readCartClaims,
  readLedgerEntries,
  readOrderClaims,
  readPayoutClaims,
  readOrderEffects,
  readPublishedEventIds,
  readReservations,
  readWorkflows,
} from './sources';
import { readTopicsToEnd } from '../kafka/topic-reader';
import { payoutIdsOf } from './classify-payouts';
import { cartIdsOf } from './classify-carts';
import { CART_EVENTS_TOPIC } from '../domains/carts/workflows/cart-names';

/** The clients reconcile reads through; the caller owns and closes them. */
export interface ReconcileDeps {
  kafka: Kafka;
  client: Client;
  /** Any pool on the database; tables are schema-qualified with `schema`. */
  pool: pg.Pool;
}

/** Options of runReconcile. */
export interface ReconcileOptions {
  /** Source topics; each one's DLQ is `<topic>.dlq`. */
  topics: readonly string[];
  /** Only orders (aggregates) whose ID starts with this. Default: '' (everything). */
  prefix?: string;
  /** Schema of the ledger and inventory tables (config.database.schema). */
  schema: string;
  /** Base URL of the providers (config.providers.url). */
  providersUrl: string;
  /** Bearer token of the providers' admin API (config.providers.adminToken). */
  providersToken?: string;
  /** The bridge's route table (buildRouteTable(config.bridge.extraRoutes)). */
  routes: RouteTable;
  /** As the bridge translates (config.bridge.maxMessageBytes). */
  translateOptions: TranslateOptions;
  /** A running workflow older than this is stuck. Default: 10 minutes. */
  stuckAfterMs?: number;
  /** Reference time for stuck orders. Default: now. */
  now?: Date;
  /** Give up reading the topics after this long. Default: 120 000 ms. */
  readTimeoutMs?: number;
  /**
   * Decodes values in the Schema Registry's wire format, as the bridge does (config.schemaRegistry).
   * Default: none; such values then read as the bridge without a registry reads them.
   */
  registry?: RegistryDecoder;
}

export interface ReconcileReport {
  clean: boolean;
  discrepancies: Discrepancy[];
  counts: Record<DiscrepancyClass, number>;
  /** What was read, so "clean" can be told apart from "read nothing". */
  read: {
    messages: number;
    validEvents: number;
    identities: number;
    poison: number;
    ledgerRows: number;
    workflows: number;
    orders: number;
    /** Payouts judged (any source knew them). */
    payouts: number;
    /** Carts judged (any source knew them). */
    carts: number;
    reservations: number;
    /** Order claims read, and how many of them have settled. */
    claims: number;
    settledClaims: number;
    dlqMessages: number;
    /** ISO time: retention trimmed a topic; older workflows were not judged. Null: complete. */
    eventsKnownSince: string | null;
  };
}

function readDlqEntry(topic: string, partition: number, message: KafkaMessage): DlqEntry {
  const { reason, sourceTopic, sourcePartition, sourceOffset } = readDlqHeaders(message.headers);
  return {
    coordinates: formatCoordinates(topic, partition, message.offset),
    key: message.key?.toString() ?? null,
    ...(reason !== undefined ? { reason } : {}),
    ...(sourceTopic && sourcePartition && sourceOffset
      ? { source: formatCoordinates(sourceTopic, Number(sourcePartition), sourceOffset) }
      : {}),
  };
}

/** The ID a message is filed under for --prefix: the order, else the aggregate, else the key. */
function subjectOf(message: KafkaMessage, orderId?: string, aggregateId?: string): string {
  return (
    orderId ??
    aggregateId ??
    firstHeaderText(message.headers, HEADER.aggregateId) ??
    message.key?.toString() ??
    ''
  );
}

/**
 * Reads the topics back and translates each message as the bridge does: valid events (every
 * occurrence, with its coordinates) and poison; plus the DLQ messages.
 */
async function readTopicFacts(
  kafka: Kafka,
  options: ReconcileOptions,
): Promise<{
  events: TopicEvent[];
  poison: TopicPoison[];
  dlq: DlqEntry[];
  messages: number;
  eventsKnownSince?: Date;
}> {
  const prefix = options.prefix ?? '';
  const dlqTopics = new Set(options.topics.map(dlqTopicOf));
  const events: TopicEvent[] = [];
  const poison: TopicPoison[] = [];
  const dlq: DlqEntry[] = [];
  let messages = 0;
  let oldest = Infinity;
  const pending: Array<{ topic: string; partition: number; message: KafkaMessage }> = [];
  // Each topic's routes, with their framing, as the bridge reads them.
  const translate = (topic: string, message: KafkaMessage, decoded?: DecodedValue) =>
    translateMessage(
      message,
      routesOfTopic(options.routes, topic, options.topics),
      options.translateOptions,
      decoded,
    );
  const file = (topic: string, partition: number, message: KafkaMessage, t: Translation) => {
    const coordinates = formatCoordinates(topic, partition, message.offset);
    if (t.kind === 'poison') {
      if (subjectOf(message).startsWith(prefix))
        poison.push({ coordinates, reason: t.reason, key: message.key?.toString() ?? null });
      return;
    }
    const orderId = t.searchAttributes.EntityId;
    if (!subjectOf(message, orderId, t.aggregateId).startsWith(prefix)) return;
    const {
      totalMinor: total,
      amountMinor: amount,
      lines,
    } = t.data as { totalMinor?: unknown; amountMinor?: unknown; lines?: unknown };
    const skus = Array.isArray(lines)
      ? lines.flatMap((l) =>
          typeof (l as { sku?: unknown })?.sku === 'string' ? [l.sku as string] : [],
        )
      : undefined;
    events.push({
      identity: t.identity,
      workflowId: t.workflowId,
      workflowType: t.workflowType,
      eventType: t.eventType,
      aggregateId: t.aggregateId,
      coordinates,
      ...(orderId !== undefined ? { orderId } : {}),
      ...(typeof total === 'number' ? { totalMinor: total } : {}),
      ...(typeof amount === 'number' ? { amountMinor: amount } : {}),
      ...(skus ? { lineSkus: skus } : {}),
      fingerprint: t.fingerprint,
    });
  };
  const { trimmed } = await readTopicsToEnd(
    kafka,
    [...options.topics, ...dlqTopics],
    (topic, partition, message) => {
      messages++;
      if (dlqTopics.has(topic)) {
        if (subjectOf(message).startsWith(prefix))
          dlq.push(readDlqEntry(topic, partition, message));
        return;
      }
      oldest = Math.min(oldest, Number(message.timestamp));
      // A registry value is decoded after the read (the reader's callback is synchronous).
      const registryValues = readsRegistryValues(
        routesOfTopic(options.routes, topic, options.topics),
      );
      if (
        options.registry &&
        registryValues &&
        registryFramingOf(message.value, message.headers) !== undefined
      ) {
        pending.push({ topic, partition, message });
        return;
      }
      file(topic, partition, message, translate(topic, message));
    },
    {
      groupId: `onceflow-reconcile-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`,
      timeoutMs: options.readTimeoutMs,
    },
  );
  // A registry that cannot answer makes the read incomplete (it throws): no verdict on guesses.
  // A schema ID it does not know is the bridge's `schema-unknown` poison (schema-misses.ts).
  for (const { topic, partition, message } of pending) {
    const decoding = await decodeOrUnknown(
      options.registry!,
      topic,
      message.value!,
      message.headers,
    );
    file(
      topic,
      partition,
      message,
      decoding.ok
        ? translate(topic, message, decoding.decoded)
        : { kind: 'poison', reason: decoding.reason, error: decoding.error },
    );
  }
  // Only a trimmed source topic makes the topic an incomplete record of what was produced.
  const incomplete = trimmed.some((t) => !dlqTopics.has(t));
  return {
    events,
    poison,
    dlq,
    messages,
    ...(incomplete
      ? { eventsKnownSince: new Date(Number.isFinite(oldest) ? oldest : Date.now()) }
      : {}),
  };
}

/**
 * Reads everything reconcile compares (topics and DLQs, ledger, Temporal, providers,
 * inventory) and classifies the discrepancies. Read-only: it changes nothing anywhere.
 */
export async function runReconcile(
  deps: ReconcileDeps,
  options: ReconcileOptions,
): Promise<ReconcileReport> {
  const prefix = options.prefix ?? '';
  const workflowTypes = new Set([...options.routes.values()].map((r) => r.workflowType));
  const [topicFacts, ledger, workflows, reservations, claims, payoutClaims, cartClaims] =
    await Promise.all([
      readTopicFacts(deps.kafka, options),
      readLedgerEntries(deps.pool, options.schema, prefix),
      readWorkflows(deps.client, { prefix, workflowTypes }),
      readReservations(deps.pool, options.schema, prefix),
      readOrderClaims(deps.pool, options.schema, prefix),
      readPayoutClaims(deps.pool, options.schema, prefix),
      readCartClaims(deps.pool, options.schema, prefix),
    ]);
  const orderIds = new Set([
    ...topicFacts.events.flatMap((e) => (e.orderId ? [e.orderId] : [])),
    ...workflows.flatMap((w) => (w.orderId ? [w.orderId] : [])),
    ...claims.map((c) => c.orderId),
    ...payoutClaims.map((c) => c.entityId),
    ...cartClaims.map((c) => c.entityId),
  ]);
  const effects = await readOrderEffects(orderIds, {
    providersUrl: options.providersUrl,
    adminToken: options.providersToken,
  });
  const facts: ReconcileFacts = {
    events: topicFacts.events,
    poison: topicFacts.poison,
    ledger,
    workflows,
    effects,
    reservations,
    dlq: topicFacts.dlq,
    claims,
    payoutClaims,
    cartClaims,
    ...(topicFacts.eventsKnownSince ? { eventsKnownSince: topicFacts.eventsKnownSince } : {}),
  };
  const payoutIds = payoutIdsOf(facts);
  const cartIds = cartIdsOf(facts);
  // What the carts published, read only when there are carts (the topic is theirs).
  if (cartIds.size > 0)
    facts.cartEvents = await readPublishedEventIds(
      deps.kafka,
      CART_EVENTS_TOPIC,
      prefix,
      options.readTimeoutMs,
    );
  const discrepancies = classifyDiscrepancies(facts, {
    now: options.now ?? new Date(),
    stuckAfterMs: options.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS,
  });
  return {
    clean: discrepancies.length === 0,
    discrepancies,
    counts: countByClass(discrepancies),
    read: {
      messages: topicFacts.messages,
      validEvents: facts.events.length,
      identities: new Set(facts.events.map((e) => e.identity)).size,
      poison: facts.poison.length,
      ledgerRows: ledger.length,
      workflows: workflows.length,
      orders: orderIds.size - payoutIds.size - cartIds.size,
      payouts: payoutIds.size,
      carts: cartIds.size,
      reservations: reservations.length,
      claims: claims.length + payoutClaims.length + cartClaims.length,
      settledClaims: [...claims, ...payoutClaims, ...cartClaims].filter(
        (c) => c.settled !== undefined,
      ).length,
      dlqMessages: facts.dlq.length,
      eventsKnownSince: facts.eventsKnownSince?.toISOString() ?? null,
    },
  };
}
