/**
 * What a failed call on one message's path means for that message. The consumer loop retries
 * `transient` errors with backoff for as long as it owns the partition (a dependency is down,
 * no message can cause it); everything else (`permanent`, `unknown`) is retried a few times
 * and then dead-lettered as `processing-failed` with the real cause, so one message can never
 * stop its partition and an unknown error is never taken for an outage forever.
 *
 * - `transient`: the dependency is unavailable, overloaded, timed out, or refuses us for a
 *   reason an operator fixes (credentials): retry, never blame the message.
 * - `permanent`: the request was refused for what it carries (too large, invalid argument,
 *   data exception, constraint) or our code threw (TypeError, RangeError).
 * - `unknown`: nothing recognised; treated like `permanent` by the loop.
 */
export type ErrorKind = 'transient' | 'permanent' | 'unknown';

export interface ErrorClassification {
  kind: ErrorKind;
  /** Which recogniser decided: kafka, temporal, postgres, network, program, or none. */
  source: 'kafka' | 'temporal' | 'postgres' | 'network' | 'program' | 'none';
  /** The code that decided (Kafka error type, gRPC status name, SQLSTATE, errno code). */
  code?: string;
  /** The error in the cause chain that was recognised (for logging its message). */
  error: unknown;
}

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
 * Kafka protocol error types that are transient although KafkaJS marks some non-retriable:
 * "we may not" (authorization: an operator fixes it), and the idempotent producer's own state
 * after a broker restart or failover (sequence numbers, producer IDs): never the record.
 */
const KAFKA_TRANSIENT_TYPES: ReadonlySet<string> = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'DUPLICATE_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_EPOCH',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'GROUP_LOAD_IN_PROGRESS',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR_FOR_GROUP',
  'TOPIC_AUTHORIZATION_FAILED',
  'GROUP_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'SASL_AUTHENTICATION_FAILED',
]);

/** KafkaJS error classes (by name) that mean the broker could not be reached or answered late. */
const KAFKA_TRANSIENT_NAMES: ReadonlySet<string> = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSStaleTopicMetadataAssignment',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSTimeout',
  'KafkaJSSASLAuthenticationError',
]);

/**
 * gRPC status codes (numeric, as on a Temporal ServiceError's cause) that are transient.
 * UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED (rate limits), ABORTED and CANCELLED are
 * the server or the network, never the request. INTERNAL is taken as transient too: Temporal's
 * server reports its own persistence being unavailable as INTERNAL, while a request it
 * refuses for its content is INVALID_ARGUMENT (or FAILED_PRECONDITION); dead-lettering valid
 * orders during a Temporal database hiccup would be worse than a stalled partition, which the
 * stalled-partition alert reports. UNAUTHENTICATED and PERMISSION_DENIED are an operator's to
 * fix, so they wait too. UNKNOWN is deliberately NOT here: the Temporal client already
 * retried it several times before throwing, and a code that says nothing is not assumed to
 * be an outage forever.
 */
export const GRPC_TRANSIENT: ReadonlyMap<number, string> = new Map([
  [1, 'CANCELLED'],
  [4, 'DEADLINE_EXCEEDED'],
  [7, 'PERMISSION_DENIED'],
  [8, 'RESOURCE_EXHAUSTED'],
  [10, 'ABORTED'],
  [13, 'INTERNAL'],
  [14, 'UNAVAILABLE'],
  [16, 'UNAUTHENTICATED'],
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
 * SQLSTATEs (or classes: two characters) that are transient: 08 connection exception,
 * 53 insufficient resources, 57P01..57P03 admin/crash shutdown and cannot-connect-now, 57014
 * query_canceled (our statement timeout), 40001 serialization failure, 40P01 deadlock,
 * 55P03 lock_not_available, 58 system error (I/O), 28 invalid authorization (an operator's
 * fix). Classes 22 (data exception), 23 (integrity) and 42 (syntax/undefined object: a bug or
 * an unmigrated schema) are permanent; anything else is unknown.
 */
const SQLSTATE_TRANSIENT = ['08', '53', '58', '28', '57P01', '57P02', '57P03', '57014', '40001'];
const SQLSTATE_TRANSIENT_EXACT = new Set(['40P01', '55P03']);
const SQLSTATE_PERMANENT_CLASSES = new Set(['22', '23', '42']);

/**
 * node-postgres's own connection failures carry no code, only these messages (pg and
 * pg-pool source): a lost or timed-out connection.
 */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|Connection terminated due to connection timeout)/;

const MAX_CAUSE_DEPTH = 8;

const KAFKA_WRAPPERS: ReadonlySet<string> = new Set([
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSNonRetriableError',
]);

const isProgramError = (e: unknown) =>
  e instanceof TypeError || e instanceof RangeError || e instanceof SyntaxError;

function field(err: unknown, name: string): unknown {
  if (typeof err !== 'object' || err === null) return undefined;
  try {
    return (err as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

function classifySqlState(code: string): ErrorKind {
  if (SQLSTATE_TRANSIENT_EXACT.has(code)) return 'transient';
  if (SQLSTATE_TRANSIENT.some((p) => code.startsWith(p))) return 'transient';
  if (SQLSTATE_PERMANENT_CLASSES.has(code.slice(0, 2))) return 'permanent';
  return 'unknown';
}

function classifyKafka(err: unknown, name: string): Omit<ErrorClassification, 'error'> | null {
  if (!name.startsWith('KafkaJS')) return null;
  const type = field(err, 'type');
  if (typeof type === 'string') {
    if (KAFKA_MESSAGE_FAULT_TYPES.has(type))
      return { kind: 'permanent', source: 'kafka', code: type };
    if (KAFKA_TRANSIENT_TYPES.has(type)) return { kind: 'transient', source: 'kafka', code: type };
  }
  if (KAFKA_TRANSIENT_NAMES.has(name)) return { kind: 'transient', source: 'kafka', code: name };
  const retriable = field(err, 'retriable');
  const code = typeof type === 'string' ? type : name;
  if (retriable === true) return { kind: 'transient', source: 'kafka', code };
  if (retriable === false) return { kind: 'permanent', source: 'kafka', code };
  return { kind: 'unknown', source: 'kafka', code };
}

/** Classifies one error (not its causes); null when nothing recognises it. */
function classifyOne(err: unknown): Omit<ErrorClassification, 'error'> | null {
  const name = field(err, 'name');
  const code = field(err, 'code');
  // KafkaJS's retrier wraps the error it gave up on (NumberOfRetriesExceeded after retries,
  // NonRetriableError for a non-retriable one): the wrapped error decides.
  if (KAFKA_WRAPPERS.has(name as string) && field(err, 'cause') !== undefined) return null;
  if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code))
    return { kind: 'transient', source: 'network', code };
  if (typeof name === 'string') {
    const kafka = classifyKafka(err, name);
    if (kafka) return kafka;
  }
  if (name === 'ServiceError') {
    // @temporalio/client's ServiceError: the gRPC status is on its cause; recognised there.
    return null;
  }
  if (typeof code === 'number' && field(err, 'details') !== undefined) {
    const transient = GRPC_TRANSIENT.get(code);
    if (transient) return { kind: 'transient', source: 'temporal', code: transient };
    const permanent = GRPC_PERMANENT.get(code);
    if (permanent) return { kind: 'permanent', source: 'temporal', code: permanent };
    return { kind: 'unknown', source: 'temporal', code: String(code) };
  }
  if (
    typeof code === 'string' &&
    /^[0-9A-Z]{5}$/.test(code) &&
    field(err, 'severity') !== undefined
  ) {
    return { kind: classifySqlState(code), source: 'postgres', code };
  }
  const message = field(err, 'message');
  if (typeof message === 'string' && PG_CONNECTION_MESSAGES.test(message))
    return { kind: 'transient', source: 'postgres', code: 'connection' };
  return null;
}

/**
 * Classifies an error by walking its cause chain (wrappers such as LedgerStoreError,
 * ServiceError and KafkaJSNumberOfRetriesExceeded keep the real error as `cause`); the first
 * error a recogniser knows decides. TypeError, RangeError and SyntaxError that no recogniser
 * claims are our code or the data tripping it: permanent. Anything else: unknown.
 */
export function classifyError(err: unknown): ErrorClassification {
  let current: unknown = err;
  const seen: unknown[] = [];
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current != null; depth++) {
    if (seen.includes(current)) break;
    seen.push(current);
    const verdict = classifyOne(current);
    if (verdict) return { ...verdict, error: current };
    current = field(current, 'cause') ?? field(current, 'originalError');
  }
  const program = seen.find(isProgramError) as Error | undefined;
  if (program) return { kind: 'permanent', source: 'program', code: program.name, error: program };
  // A KafkaJS wrapper around something unrecognised still carries KafkaJS's own verdict.
  const wrapper = seen.find((e) => KAFKA_WRAPPERS.has(field(e, 'name') as string));
  if (wrapper && field(wrapper, 'retriable') === false)
    return {
      kind: 'permanent',
      source: 'kafka',
      code: field(wrapper, 'name') as string,
      error: wrapper,
    };
  return { kind: 'unknown', source: 'none', error: err };
}

/** `err.message`, or String(err), never throwing (hostile or odd error values included). */
export function describeError(err: unknown): string {
  try {
    const message = field(err, 'message');
    const name = field(err, 'name');
    if (typeof message === 'string')
      return typeof name === 'string' && name !== 'Error' ? `${name}: ${message}` : message;
    return String(err);
  } catch {
    return 'unprintable error';
  }
}
