/**
 * The codes classify-error.ts recognises, per dependency, and what each one means for the
 * message on whose path it came (docs/architecture.md, "Error classification"). A code is
 * listed as an **environment fault** only when no message content can cause it: the bridge's
 * SQL is fixed text with `$n` parameters (a message never names a table, column, schema or
 * role), its Temporal namespace, task queue and search attribute names come from config and
 * code, its DLQ topic from the source topic's name.
 */

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
 * - `schema-unknown`: the Schema Registry answers but does not know a value's schema ID (the
 *   producer wrote through another registry, or the schema was deleted).
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
 * Node's network error codes (errno) meaning "could not reach or lost the peer". A message
 * cannot cause any of these.
 */
export const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ESOCKETTIMEDOUT',
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
 * missing topic (the bridge never creates one: a DLQ topic the broker auto-created would lack
 * the DLQ's retention and size), and the idempotent producer's own state after a broker
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

/**
 * SQLSTATEs (exact codes first, then two-character classes) that are the environment's:
 * - 08 connection exception, 57P01..57P03 admin/crash shutdown and cannot-connect-now, 57014
 *   query_canceled (our statement timeout), 58 system error (I/O): unavailable;
 * - 40001 serialization failure, 40P01 deadlock, 55P03 lock_not_available: contention;
 * - 28 invalid authorization (bad password, role may not log in): authentication;
 * - 42501 insufficient_privilege: permission;
 * - 42P01 undefined_table, 42703 undefined_column, 42883 undefined_function, 42704
 *   undefined_object, 3F000 invalid_schema_name: schema-missing (the bridge's SQL names only
 *   its own ledger table, so these mean unmigrated or altered schema, never the message);
 * - 25006 read_only_sql_transaction: read-only;
 * - 53100 disk_full: disk-full; the rest of 53 (out of memory, too many connections,
 *   configuration limit): resources.
 * Classes 22 (data exception), 23 (integrity) and the rest of 42 (syntax and kin: a bug in a
 * statement) are the request's; anything else is unknown.
 */
export const SQLSTATE_ENVIRONMENT: ReadonlyMap<string, EnvironmentFault> = new Map([
  ['57P01', 'unavailable'],
  ['57P02', 'unavailable'],
  ['57P03', 'unavailable'],
  ['57014', 'unavailable'],
  ['40001', 'contention'],
  ['40P01', 'contention'],
  ['55P03', 'contention'],
  ['42501', 'permission'],
  ['42P01', 'schema-missing'],
  ['42703', 'schema-missing'],
  ['42883', 'schema-missing'],
  ['42704', 'schema-missing'],
  ['3F000', 'schema-missing'],
  ['25006', 'read-only'],
  ['53100', 'disk-full'],
]);
export const SQLSTATE_ENVIRONMENT_CLASSES: ReadonlyMap<string, EnvironmentFault> = new Map([
  ['08', 'unavailable'],
  ['58', 'unavailable'],
  ['28', 'authentication'],
  ['53', 'resources'],
]);
export const SQLSTATE_PERMANENT_CLASSES: ReadonlySet<string> = new Set(['22', '23', '42']);

/**
 * node-postgres's own connection failures carry no code, only these messages (pg and
 * pg-pool source): a lost or timed-out connection.
 */
export const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|Connection terminated due to connection timeout)/;
