/**
 * The codes classify-error.ts recognises, per dependency, and what each one means for the
 * message on whose path it came (docs/architecture.md, "Error classification"). A code is
 * listed as an **environment fault** only when no message content can cause it: the bridge's
 * SQL is fixed text with `$n` parameters (a message never names a table, column, schema or
 * role), its Temporal namespace, task queue and search attribute names come from config and
 * code, its DLQ topic from the source topic's name.
 */

/** The dependency a failed call on a message's path belongs to (the `dependency` label). */
export type Dependency = 'temporal' | 'postgres' | 'dlq' | 'registry';

/**
 * What an operator (or time) must fix before the bridge can go on; the label `fault` of
 * `onceflow_bridge_transient_retries_total` and the key of the fix the log line names
 * (fault-advice.ts).
 *
 * - `unavailable`: unreachable, restarting, timed out or overloaded; heals by itself.
 * - `contention`: a lock, deadlock or serialization conflict; heals by itself.
 * - `authentication`: the credentials are refused (password, role may not log in, API key).
 * - `permission`: the identity is known but lacks a privilege or ACL.
 * - `schema-missing`: a table, column, schema or function is missing (migrations not run,
 *   a table renamed or dropped).
 * - `read-only`: the database refuses writes (a standby after failover, or
 *   default_transaction_read_only).
 * - `disk-full`: the database server cannot extend a file.
 * - `resources`: the database server is out of memory or connections.
 * - `namespace-missing`: the Temporal namespace does not exist.
 * - `search-attributes-missing`: the namespace lacks a search attribute the bridge sets.
 * - `topic-missing`: the Kafka topic (the DLQ topic) does not exist.
 * - `schema-pending`: the Schema Registry answers for other schemas but not (yet) for a
 *   value's schema ID; heals by itself: the ID arrives, or after BRIDGE_SCHEMA_UNKNOWN_AFTER
 *   the value is dead-lettered `schema-unknown` (schema-misses.ts).
 * - `schema-unknown`: the Schema Registry does not know a value's schema ID and has not shown
 *   that it answers at all (no other schema decoded lately, no subjects listing): most likely
 *   SCHEMA_REGISTRY_URL does not point at the producers' registry.
 */
export const ENVIRONMENT_FAULTS = [
  'unavailable',
  'contention',
  'authentication',
  'permission',
  'schema-missing',
  'read-only',
  'disk-full',
  'resources',
  'namespace-missing',
  'search-attributes-missing',
  'topic-missing',
  'schema-pending',
  'schema-unknown',
] as const;
export type EnvironmentFault = (typeof ENVIRONMENT_FAULTS)[number];

/**
 * Faults that do not heal by themselves: an operator must act. Their alert fires sooner
 * (monitoring/prometheus/alerts.yml) and their log line names the fix.
 */
export const OPERATOR_FAULTS: ReadonlySet<EnvironmentFault> = new Set<EnvironmentFault>([
  'authentication',
  'permission',
  'schema-missing',
  'read-only',
  'disk-full',
  'resources',
  'namespace-missing',
  'search-attributes-missing',
  'topic-missing',
  'schema-unknown',
]);

/**
 * Kafka protocol error types that refuse a record for its content: the same record will be
 * refused again (the DLQ write of a record turns into a stub record on these).
 */
export const KAFKA_MESSAGE_FAULT_TYPES: ReadonlySet<string> = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'CORRUPT_MESSAGE',
  'INVALID_TIMESTAMP',
]);

/**
 * Kafka protocol error types that are the environment's although KafkaJS marks some
 * non-retriable: "we may not" (authorization and authentication: an operator fixes them), a
 * missing topic (a DLQ write never creates one: a DLQ topic the broker auto-created would lack
 * the DLQ's retention and size; the bridge creates missing DLQ topics only at start), and the idempotent producer's own state after a broker
 * restart or failover (sequence numbers, producer IDs): never the record.
 */
export const KAFKA_ENVIRONMENT_TYPES: ReadonlyMap<string, EnvironmentFault> = new Map([
  ['OUT_OF_ORDER_SEQUENCE_NUMBER', 'unavailable'],
  ['DUPLICATE_SEQUENCE_NUMBER', 'unavailable'],
  ['UNKNOWN_PRODUCER_ID', 'unavailable'],
  ['INVALID_PRODUCER_EPOCH', 'unavailable'],
  ['NOT_ENOUGH_REPLICAS', 'unavailable'],
  ['NOT_ENOUGH_REPLICAS_AFTER_APPEND', 'unavailable'],
  ['GROUP_LOAD_IN_PROGRESS', 'unavailable'],
  ['GROUP_COORDINATOR_NOT_AVAILABLE', 'unavailable'],
  ['NOT_COORDINATOR_FOR_GROUP', 'unavailable'],
  ['UNKNOWN_TOPIC_OR_PARTITION', 'topic-missing'],
  ['TOPIC_AUTHORIZATION_FAILED', 'permission'],
  ['GROUP_AUTHORIZATION_FAILED', 'permission'],
  ['CLUSTER_AUTHORIZATION_FAILED', 'permission'],
  ['TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'permission'],
  ['SASL_AUTHENTICATION_FAILED', 'authentication'],
  ['ILLEGAL_SASL_STATE', 'authentication'],
  ['UNSUPPORTED_SASL_MECHANISM', 'authentication'],
]);

/** KafkaJS error classes (by name) that mean the broker could not be reached, answered late, or refused us. */
export const KAFKA_ENVIRONMENT_NAMES: ReadonlyMap<string, EnvironmentFault> = new Map([
  ['KafkaJSConnectionError', 'unavailable'],
  ['KafkaJSConnectionClosedError', 'unavailable'],
  ['KafkaJSRequestTimeoutError', 'unavailable'],
  ['KafkaJSBrokerNotFound', 'unavailable'],
  ['KafkaJSNoBrokerAvailableError', 'unavailable'],
  ['KafkaJSMetadataNotLoaded', 'unavailable'],
  ['KafkaJSTopicMetadataNotLoaded', 'unavailable'],
  ['KafkaJSStaleTopicMetadataAssignment', 'unavailable'],
  ['KafkaJSGroupCoordinatorNotFound', 'unavailable'],
  ['KafkaJSLockTimeout', 'unavailable'],
  ['KafkaJSTimeout', 'unavailable'],
  ['KafkaJSSASLAuthenticationError', 'authentication'],
]);

/**
 * gRPC status codes (numeric, as on a Temporal ServiceError's cause) that are the
 * environment's. UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED (rate limits), ABORTED and
 * CANCELLED are the server or the network, never the request. INTERNAL is taken as
 * unavailable too: Temporal's server reports its own persistence being unavailable as
 * INTERNAL, while a request it refuses for its content is INVALID_ARGUMENT (or
 * FAILED_PRECONDITION); dead-lettering valid orders during a Temporal database hiccup would
 * be worse than a stalled partition, which the stalled-partition alert reports.
 * UNAUTHENTICATED and PERMISSION_DENIED are an operator's to fix. UNKNOWN is deliberately NOT
 * here: the Temporal client already retried it several times before throwing, and a code that
 * says nothing is not assumed to be an outage forever. A missing namespace is recognised by
 * the client's NamespaceNotFoundError (the server's NamespaceNotFoundFailure detail), not by
 * NOT_FOUND, which stays the request's.
 */
export const GRPC_ENVIRONMENT: ReadonlyMap<number, [string, EnvironmentFault]> = new Map([
  [1, ['CANCELLED', 'unavailable']],
  [4, ['DEADLINE_EXCEEDED', 'unavailable']],
  [7, ['PERMISSION_DENIED', 'permission']],
  [8, ['RESOURCE_EXHAUSTED', 'unavailable']],
  [10, ['ABORTED', 'unavailable']],
  [13, ['INTERNAL', 'unavailable']],
  [14, ['UNAVAILABLE', 'unavailable']],
  [16, ['UNAUTHENTICATED', 'authentication']],
]);

/** gRPC status codes that refuse the request itself. */
export const GRPC_PERMANENT: ReadonlyMap<number, string> = new Map([
  [3, 'INVALID_ARGUMENT'],
  [5, 'NOT_FOUND'],
  [6, 'ALREADY_EXISTS'],
  [9, 'FAILED_PRECONDITION'],
  [11, 'OUT_OF_RANGE'],
  [12, 'UNIMPLEMENTED'],
  [15, 'DATA_LOSS'],
]);

/**
 * INVALID_ARGUMENT that is the namespace's, not the request's: a search attribute the bridge
 * sets (names fixed in src/temporal/search-attributes.ts; a message only supplies values) is
 * not registered. Temporal says so only in the message.
 */
export const TEMPORAL_SEARCH_ATTRIBUTE_MISSING =
  /no mapping defined for search attribute|search attribute .* is not defined/i;

// Postgres' and Node's network codes are the database layer's (src/db/pg-faults.ts): the
// bridge classifies by them as the worker does.
export {
  PG_CONNECTION_MESSAGES,
  SQLSTATE_ENVIRONMENT,
  SQLSTATE_ENVIRONMENT_CLASSES,
  SQLSTATE_PERMANENT_CLASSES,
  TRANSIENT_NETWORK_CODES,
} from '../db/pg-faults';
