import {
  GRPC_ENVIRONMENT,
  GRPC_PERMANENT,
  KAFKA_ENVIRONMENT_NAMES,
  KAFKA_ENVIRONMENT_TYPES,
  KAFKA_MESSAGE_FAULT_TYPES,
  PG_CONNECTION_MESSAGES,
  SQLSTATE_ENVIRONMENT,
  SQLSTATE_ENVIRONMENT_CLASSES,
  SQLSTATE_PERMANENT_CLASSES,
  TEMPORAL_SEARCH_ATTRIBUTE_MISSING,
  TRANSIENT_NETWORK_CODES,
  type EnvironmentFault,
} from './error-codes';

export { KAFKA_MESSAGE_FAULT_TYPES, TRANSIENT_NETWORK_CODES, type EnvironmentFault };

/**
 * What a failed call on one message's path means for that message (docs/architecture.md,
 * "Error classification"; the codes are in error-codes.ts). Whose fault decides: the
 * environment's faults stall the partition, the message's go to the DLQ.
 *
 * - `transient`: the environment's fault, recognised by its code: a dependency is
 *   unavailable, overloaded or timed out, or refuses us for a reason an operator fixes (a
 *   missing namespace, table or DLQ topic, a privilege, credentials, a read-only or full
 *   database). `fault` says which. The consumer loop retries it with backoff for as long as
 *   it owns the partition and commits nothing past the message; never the message's blame.
 * - `permanent`: the request was refused for what it carries (too large, invalid argument,
 *   data exception, constraint) or our code threw (TypeError, RangeError).
 * - `unknown`: nothing recognised. Treated like `permanent`: retried a few times, then
 *   dead-lettered as `processing-failed` with the real cause, so an unknown error is never
 *   taken for an outage forever and one message can never stop its partition.
 */
export type ErrorKind = 'transient' | 'permanent' | 'unknown';

export interface ErrorClassification {
  kind: ErrorKind;
  /** Which recogniser decided: kafka, temporal, postgres, network, program, or none. */
  source: 'kafka' | 'temporal' | 'postgres' | 'registry' | 'network' | 'program' | 'none';
  /** The code that decided (Kafka error type, gRPC status name, SQLSTATE, errno code). */
  code?: string;
  /** For `transient` only: which environment fault (error-codes.ts). */
  fault?: EnvironmentFault;
  /** The error in the cause chain that was recognised (for logging its message). */
  error: unknown;
}

type Verdict = Omit<ErrorClassification, 'error'>;

const environment = (
  source: Verdict['source'],
  code: string,
  fault: EnvironmentFault,
): Verdict => ({
  kind: 'transient',
  source,
  code,
  fault,
});

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

function classifySqlState(code: string): Verdict {
  const fault =
    SQLSTATE_ENVIRONMENT.get(code) ?? SQLSTATE_ENVIRONMENT_CLASSES.get(code.slice(0, 2));
  if (fault) return environment('postgres', code, fault);
  if (SQLSTATE_PERMANENT_CLASSES.has(code.slice(0, 2)))
    return { kind: 'permanent', source: 'postgres', code };
  return { kind: 'unknown', source: 'postgres', code };
}

function classifyKafka(err: unknown, name: string): Verdict | null {
  if (!name.startsWith('KafkaJS')) return null;
  const type = field(err, 'type');
  if (typeof type === 'string') {
    if (KAFKA_MESSAGE_FAULT_TYPES.has(type))
      return { kind: 'permanent', source: 'kafka', code: type };
    const fault = KAFKA_ENVIRONMENT_TYPES.get(type);
    if (fault) return environment('kafka', type, fault);
  }
  const byName = KAFKA_ENVIRONMENT_NAMES.get(name);
  if (byName) return environment('kafka', name, byName);
  const retriable = field(err, 'retriable');
  const code = typeof type === 'string' ? type : name;
  if (retriable === true) return environment('kafka', code, 'unavailable');
  if (retriable === false) return { kind: 'permanent', source: 'kafka', code };
  return { kind: 'unknown', source: 'kafka', code };
}

function classifyGrpc(err: unknown, code: number): Verdict {
  const env = GRPC_ENVIRONMENT.get(code);
  if (env) return environment('temporal', env[0], env[1]);
  const permanent = GRPC_PERMANENT.get(code);
  if (permanent === 'INVALID_ARGUMENT') {
    const details = field(err, 'details');
    if (typeof details === 'string' && TEMPORAL_SEARCH_ATTRIBUTE_MISSING.test(details))
      return environment('temporal', permanent, 'search-attributes-missing');
  }
  if (permanent) return { kind: 'permanent', source: 'temporal', code: permanent };
  return { kind: 'unknown', source: 'temporal', code: String(code) };
}

/**
 * The Schema Registry's answer (SchemaRegistryError, src/kafka/registry-decoder.ts): every one
 * is the environment's, since a message only names a schema ID. Without a status the request
 * failed (its cause, a network error, decides); an answer nothing here names is unknown.
 */
function classifyRegistry(err: unknown): Verdict | null {
  const status = field(err, 'status');
  if (typeof status !== 'number') return null;
  const code = String(status);
  if (status === 404) return environment('registry', code, 'schema-unknown');
  if (status === 401) return environment('registry', code, 'authentication');
  if (status === 403) return environment('registry', code, 'permission');
  if (status >= 500 || status === 429 || status === 408)
    return environment('registry', code, 'unavailable');
  return { kind: 'unknown', source: 'registry', code };
}

/** Classifies one error (not its causes); null when nothing recognises it. */
function classifyOne(err: unknown): Verdict | null {
  const name = field(err, 'name');
  const code = field(err, 'code');
  // KafkaJS's retrier wraps the error it gave up on (NumberOfRetriesExceeded after retries,
  // NonRetriableError for a non-retriable one): the wrapped error decides.
  if (KAFKA_WRAPPERS.has(name as string) && field(err, 'cause') !== undefined) return null;
  if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code))
    return environment('network', code, 'unavailable');
  if (name === 'SchemaRegistryError') return classifyRegistry(err);
  // A 404 for one ID while the registry answers for others (schema-misses.ts): a wait that
  // ends by itself, not an operator's fault.
  if (name === 'SchemaPendingError') return environment('registry', '404', 'schema-pending');
  if (typeof name === 'string') {
    const kafka = classifyKafka(err, name);
    if (kafka) return kafka;
  }
  // @temporalio/client turns the server's NamespaceNotFoundFailure detail into this error
  // (no cause, no gRPC code): the namespace is missing, whatever the request.
  if (name === 'NamespaceNotFoundError')
    return environment('temporal', 'NamespaceNotFound', 'namespace-missing');
  if (name === 'ServiceError') {
    // @temporalio/client's ServiceError: the gRPC status is on its cause; recognised there.
    return null;
  }
  if (typeof code === 'number' && field(err, 'details') !== undefined)
    return classifyGrpc(err, code);
  if (
    typeof code === 'string' &&
    /^[0-9A-Z]{5}$/.test(code) &&
    field(err, 'severity') !== undefined
  ) {
    return classifySqlState(code);
  }
  const message = field(err, 'message');
  if (typeof message === 'string' && PG_CONNECTION_MESSAGES.test(message))
    return environment('postgres', 'connection', 'unavailable');
  return null;
}

/**
 * Classifies an error by walking its cause chain (wrappers such as LedgerStoreError,
 * DependencyCallError, ServiceError and KafkaJSNumberOfRetriesExceeded keep the real error as
 * `cause`); the first error a recogniser knows decides. TypeError, RangeError and SyntaxError that no recogniser
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
