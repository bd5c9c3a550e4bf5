import { describeError, type ErrorClassification } from './classify-error';
import type { EnvironmentFault } from './error-codes';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';

/** Every search attribute onceflow needs in its namespace (the bridge's and the workflows'). */
const SEARCH_ATTRIBUTES = Object.values(SEARCH_ATTRIBUTE).map((key) => key.name);

/** Which dependency a fault is on: the three on a message's path, and the consumer's Kafka. */
export type FaultDependency = 'temporal' | 'postgres' | 'dlq' | 'kafka' | 'registry';

/** What the bridge knows of its environment, to name the fix precisely. */
export interface FaultContext {
  /** The ledger's schema (DATABASE_SCHEMA). */
  ledgerSchema: string;
  /** The database role the bridge connects as (the user of DATABASE_URL), when known. */
  databaseRole?: string;
  /** TEMPORAL_NAMESPACE. */
  temporalNamespace: string;
  /** SCHEMA_REGISTRY_URL, when the bridge has a registry (never carries credentials). */
  registryUrl?: string;
}

/** The ledger store's operations and the statement each runs (src/db/ledger-store.ts). */
const LEDGER_STATEMENTS: Readonly<Record<string, string>> = {
  recordStarted: 'INSERT',
  recordAllStarted: 'INSERT',
  findKnown: 'SELECT',
  highestVersions: 'SELECT',
};

function field(err: unknown, name: string): unknown {
  if (typeof err !== 'object' || err === null) return undefined;
  try {
    return (err as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

/** The ledger operation in the cause chain (LedgerStoreError.operation), if any. */
function ledgerOperation(err: unknown): string | undefined {
  for (let e = err, depth = 0; e != null && depth < 8; e = field(e, 'cause'), depth++) {
    if (field(e, 'name') === 'LedgerStoreError') {
      const op = field(e, 'operation');
      return typeof op === 'string' ? op : undefined;
    }
  }
  return undefined;
}

const RETRIES = 'The bridge retries; nothing is dead-lettered or committed past the message.';

function postgresFix(fault: EnvironmentFault, ctx: FaultContext): string {
  const table = `${ctx.ledgerSchema}.processed_events`;
  const role = ctx.databaseRole ? `role ${ctx.databaseRole}` : "the bridge's role";
  switch (fault) {
    case 'permission':
      return `Grant the bridge's ${role}: GRANT USAGE ON SCHEMA ${ctx.ledgerSchema} and GRANT SELECT, INSERT ON ${table} (the migrations' owner may grant them).`;
    case 'schema-missing':
      return `The ledger table or schema is missing: run the migrations against DATABASE_SCHEMA=${ctx.ledgerSchema} (npm run setup, or restart the bridge, which applies them), or restore ${table}.`;
    case 'read-only':
      return 'Postgres refuses writes: DATABASE_URL reaches a standby (after a failover) or default_transaction_read_only is on. Point DATABASE_URL at the primary or turn the setting off; the bridge opens fresh connections.';
    case 'disk-full':
      return "The database server's disk is full: free space or grow the volume.";
    case 'resources':
      return 'The database server is out of memory or connections: raise max_connections or lower DATABASE_POOL_MAX across processes, or add memory.';
    case 'authentication':
      return `Postgres refused the bridge's login: check DATABASE_URL's user and password, pg_hba.conf, and that the ${role} may log in (ALTER ROLE … LOGIN).`;
    default:
      return 'Postgres is unreachable, restarting or busy.';
  }
}

function temporalFix(fault: EnvironmentFault, ctx: FaultContext): string {
  const ns = ctx.temporalNamespace;
  switch (fault) {
    case 'namespace-missing':
      return `Temporal has no namespace ${ns}: create it (temporal operator namespace create --namespace ${ns}) with the search attributes ${SEARCH_ATTRIBUTES.join(', ')} (Keyword), or correct TEMPORAL_NAMESPACE.`;
    case 'search-attributes-missing':
      return `Register the search attributes the bridge sets in namespace ${ns}: ${SEARCH_ATTRIBUTES.map((a) => `temporal operator search-attribute create --namespace ${ns} --name ${a} --type Keyword`).join('; ')}.`;
    case 'permission':
      return `Temporal denies the bridge's identity: allow it to start workflows in namespace ${ns}.`;
    case 'authentication':
      return "Temporal refused the bridge's credentials: check TEMPORAL_API_KEY or the TLS client certificate (TEMPORAL_TLS_*).";
    default:
      return 'Temporal is unreachable, overloaded or restarting.';
  }
}

function kafkaFix(fault: EnvironmentFault, topic: string | undefined): string {
  const what = topic ?? 'the topic';
  switch (fault) {
    case 'topic-missing':
      return `Create ${what} (npx onceflow setup creates each <topic>.dlq with its source's partitions and the DLQ's retention and size limits, and so does a bridge starting with BRIDGE_DLQ_TOPICS=create; a DLQ write never auto-creates it).`;
    case 'permission':
      return `Kafka denies the bridge's principal: grant it WRITE and DESCRIBE on ${what} (DLQ) or READ on the source topics and its consumer group (ACLs).`;
    case 'authentication':
      return "Kafka refused the bridge's SASL credentials: check KAFKA_SASL_*.";
    default:
      return 'Kafka is unreachable or electing a leader.';
  }
}

function registryFix(fault: EnvironmentFault, url: string): string {
  switch (fault) {
    case 'schema-unknown':
      return `The registry at ${url} does not know this schema ID and has not shown that it answers at all (no other schema decoded lately, and listing its subjects failed): point SCHEMA_REGISTRY_URL at the producers' registry's Confluent-compatible API (Apicurio: /apis/ccompat/v7). Once it answers, a value whose ID it still does not know goes to the DLQ as schema-unknown after BRIDGE_SCHEMA_UNKNOWN_AFTER.`;
    case 'authentication':
      return "The registry refused the bridge's credentials: check SCHEMA_REGISTRY_USERNAME and SCHEMA_REGISTRY_PASSWORD, or SCHEMA_REGISTRY_BEARER_TOKEN.";
    case 'permission':
      return `The registry at ${url} denies the bridge reading schemas: grant its principal read access.`;
    default:
      return `The registry at ${url} is unreachable or failing.`;
  }
}

/**
 * The log line for a stall on an environment fault: what refused what, the server's own
 * words and code, and the fix. E.g. "Postgres refused INSERT on orders.processed_events:
 * permission denied for table processed_events (42501). Grant the bridge's role bridge: …
 * The bridge retries; …".
 */
export function adviseFault(fault: {
  dependency: FaultDependency;
  /** The error as thrown (its cause chain holds the recognised one). */
  err: unknown;
  classification: ErrorClassification;
  context: FaultContext;
  /** The Kafka topic written or read, when known. */
  target?: string;
}): string {
  const { dependency, classification, context, target } = fault;
  const kind = classification.fault ?? 'unavailable';
  // The server's own words: pg's DatabaseError is named "error", which says nothing.
  const message = field(classification.error, 'message');
  const said = `${typeof message === 'string' ? message : describeError(classification.error)} (${classification.code ?? kind})`;
  switch (dependency) {
    case 'postgres': {
      const op = ledgerOperation(fault.err);
      const statement = op ? (LEDGER_STATEMENTS[op] ?? op) : 'a statement';
      return `Postgres refused ${statement} on ${context.ledgerSchema}.processed_events: ${said}. ${postgresFix(kind, context)} ${RETRIES}`;
    }
    case 'temporal':
      return `Temporal refused the workflow start in namespace ${context.temporalNamespace}: ${said}. ${temporalFix(kind, context)} ${RETRIES}`;
    case 'dlq':
      return `Kafka refused the DLQ write to ${target ?? 'the DLQ topic'}: ${said}. ${kafkaFix(kind, target)} ${RETRIES}`;
    case 'registry': {
      const url = context.registryUrl ?? 'SCHEMA_REGISTRY_URL';
      return `The schema registry refused decoding a value: ${said}. ${registryFix(kind, url)} ${RETRIES}`;
    }
    case 'kafka':
      return `Kafka refused the bridge's consumer: ${said}. ${kafkaFix(kind, target)} The consumer restarts and retries; nothing is committed meanwhile.`;
  }
}
