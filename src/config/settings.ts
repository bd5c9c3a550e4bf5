import { z } from 'zod';
import type { SettingSpec } from './setting-spec';
import {
  base64Key,
  bool,
  duration,
  hostPort,
  hostPortList,
  logLevel,
  millisOrOff,
  nameList,
  nonEmpty,
  portOrZero,
  positiveInt,
  postgresUrl,
  saslMechanism,
  schemaName,
  sslMode,
  httpUrl,
  isoTime,
} from './env-schema';
import { providerRateLimits, tenantWeights } from './fairness-settings';
import { SCHEDULING_SETTINGS } from './scheduling-settings';

/**
 * THE settings of onceflow: every environment variable, its parser, default and meaning, once.
 * DEFAULTS, the validation, the Env type (and through the mapping in load.ts, Config) and the
 * docs/configuration.md check all follow from this table. Empty strings count as unset.
 */
export const SETTINGS = {
  TEMPORAL_ADDRESS: {
    parse: hostPort,
    default: '127.0.0.1:7233',
    doc: 'Temporal frontend gRPC address.',
  },
  TEMPORAL_NAMESPACE: {
    parse: nonEmpty,
    default: 'default',
    doc: 'Temporal namespace the worker polls and the bridge starts workflows in.',
  },
  TEMPORAL_TASK_QUEUE: {
    parse: nonEmpty,
    default: 'onceflow-orders',
    doc: 'Task queue shared by the worker and the bridge.',
  },
  TEMPORAL_UI_URL: {
    parse: httpUrl,
    default: 'http://127.0.0.1:8233',
    doc:
      'Base URL of the Temporal Web UI (http:// or https://), used to print links to runs; its ' +
      "origin is the codec server's CORS origin unless CODEC_SERVER_CORS_ORIGIN says otherwise.",
  },
  TEMPORAL_TLS: {
    parse: bool,
    doc: 'TLS to the frontend; unset: on when a client certificate, CA or API key is set.',
    shownDefault: 'off; on when a cert, CA or API key is set',
  },
  TEMPORAL_TLS_CERT_PATH: { parse: nonEmpty, doc: 'mTLS client certificate (with the key).' },
  TEMPORAL_TLS_KEY_PATH: { parse: nonEmpty, doc: 'mTLS client key (with the certificate).' },
  TEMPORAL_TLS_CA_PATH: { parse: nonEmpty, doc: 'CA of the frontend certificate.' },
  TEMPORAL_TLS_SERVER_NAME: { parse: nonEmpty, doc: 'SNI / server name override.' },
  TEMPORAL_API_KEY: { parse: nonEmpty, doc: 'API key (Temporal Cloud).', secret: true },
  KAFKA_BROKERS: {
    parse: hostPortList,
    default: '127.0.0.1:9092',
    doc: 'Comma-separated bootstrap brokers.',
  },
  KAFKA_CLIENT_ID: {
    parse: nonEmpty,
    default: 'onceflow',
    doc: 'Kafka client id reported to the brokers.',
  },
  KAFKA_TOPICS: {
    parse: nameList,
    default: 'orders',
    doc: 'Comma-separated source topics; each has a DLQ topic (src/events/dlq-topic.ts).',
  },
  KAFKA_TOPIC_PARTITIONS: {
    parse: positiveInt,
    default: '6',
    doc: 'Partitions used when onceflow creates its topics (existing topics are left alone).',
  },
  KAFKA_GROUP_ID: {
    parse: nonEmpty,
    default: 'onceflow-bridge',
    doc: 'Consumer group of the bridge.',
  },
  KAFKA_SSL: { parse: bool, default: 'false', doc: 'TLS to the brokers.', shownDefault: 'off' },
  KAFKA_SSL_CA_PATH: { parse: nonEmpty, doc: 'CA of the brokers; setting it turns TLS on.' },
  KAFKA_SASL_MECHANISM: { parse: saslMechanism, doc: 'SASL mechanism (with credentials).' },
  KAFKA_SASL_USERNAME: { parse: nonEmpty, doc: 'SASL user name.' },
  KAFKA_SASL_PASSWORD: { parse: nonEmpty, doc: 'SASL password.', secret: true },
  KAFKA_SASL_PLAIN_WITHOUT_TLS: {
    parse: bool,
    default: 'false',
    doc:
      '`true` lets KAFKA_SASL_MECHANISM=plain run without TLS (KAFKA_SSL), which sends the ' +
      'password in clear on every connection: only for a broker on a network you trust ' +
      '(loopback, a sidecar). Otherwise that combination is a config error.',
    shownDefault: 'off',
  },
  SCHEMA_REGISTRY_URL: {
    parse: httpUrl,
    doc:
      'Schema Registry (Confluent API; Apicurio at `/apis/ccompat/v7`) that decodes values in ' +
      'the Confluent wire format (Avro, Protobuf, JSON Schema). Unset: such values are ' +
      '`unparseable` poison. No credentials in the URL (SCHEMA_REGISTRY_USERNAME/PASSWORD).',
  },
  SCHEMA_REGISTRY_USERNAME: { parse: nonEmpty, doc: 'Basic auth user of the registry.' },
  SCHEMA_REGISTRY_PASSWORD: {
    parse: nonEmpty,
    doc: 'Basic auth password of the registry.',
    secret: true,
  },
  SCHEMA_REGISTRY_BEARER_TOKEN: {
    parse: nonEmpty,
    doc: 'Bearer token of the registry (instead of basic auth).',
    secret: true,
  },
  SCHEMA_REGISTRY_CA_PATH: {
    parse: nonEmpty,
    doc: 'CA of the registry certificate (https://; default: the system CAs).',
  },
  SCHEMA_REGISTRY_TLS_CERT_PATH: {
    parse: nonEmpty,
    doc: 'mTLS client certificate for the registry (with the key).',
  },
  SCHEMA_REGISTRY_TLS_KEY_PATH: {
    parse: nonEmpty,
    doc: 'mTLS client key for the registry (with the certificate).',
  },
  SCHEMA_REGISTRY_TIMEOUT_MS: {
    parse: positiveInt,
    default: '10000',
    doc: 'A registry request that takes longer fails (and is retried: the partition waits).',
  },
  DATABASE_URL: {
    parse: postgresUrl,
    default: 'postgres://onceflow@127.0.0.1:55432/onceflow',
    doc: 'Postgres connection URL (ledger, inventory, provider sandboxes); no TLS parameters.',
    secret: true,
  },
  DATABASE_SSL: {
    parse: sslMode,
    default: 'disable',
    doc:
      '`require` (or its libpq name `verify-full`) verifies the certificate chain and the host ' +
      'name; `verify-ca` the chain only, for a server reached by a name its certificate does ' +
      'not carry. No mode encrypts without verifying.',
  },
  DATABASE_SSL_CA_PATH: {
    parse: nonEmpty,
    doc: 'CA of the Postgres server certificate (default: the system CAs).',
  },
  DATABASE_SCHEMA: {
    parse: schemaName,
    default: 'public',
    doc: "Schema of onceflow's tables (ledger, inventory); tests and side-by-side installs use their own.",
  },
  DATABASE_POOL_MAX: {
    parse: positiveInt,
    default: '10',
    doc: 'Connections per process in the Postgres pool.',
  },
  DATABASE_CONNECT_TIMEOUT_MS: {
    parse: positiveInt,
    default: '5000',
    doc: 'How long opening a Postgres connection may take before it fails (and is retried).',
  },
  DATABASE_STATEMENT_TIMEOUT_MS: {
    parse: millisOrOff,
    default: '15000',
    doc:
      'Postgres statement_timeout: a statement running longer (e.g. waiting for a lock someone ' +
      'else holds) is cancelled (SQLSTATE 57014) and retried by its caller, so a hung query ' +
      'cannot stop the bridge. 0 turns it off.',
  },
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: {
    parse: millisOrOff,
    default: '30000',
    doc: 'Postgres idle_in_transaction_session_timeout: ends a session left idle inside a transaction. 0 = off.',
  },
  LOG_LEVEL: { parse: logLevel, default: 'info', doc: 'pino log level.' },
  WORKER_METRICS_PORT: {
    parse: portOrZero,
    default: '9465',
    doc:
      "Port of the worker's Prometheus endpoint (the Temporal runtime's exporter, GET /metrics); " +
      '0 turns it off (the runtime cannot report a randomly chosen port).',
  },
  WORKER_METRICS_HOST: {
    parse: nonEmpty,
    default: '127.0.0.1',
    doc: "Interface of the worker's metrics endpoint; `0.0.0.0` in a container a scraper reaches.",
  },
  BRIDGE_METRICS_HOST: {
    parse: nonEmpty,
    default: '127.0.0.1',
    doc: "Interface of the bridge's metrics endpoint; `0.0.0.0` in a container a scraper reaches.",
  },
  WORKER_MAX_CONCURRENT_ACTIVITIES: {
    parse: positiveInt,
    default: '100',
    doc: 'Activities one worker runs at once.',
  },
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: {
    parse: positiveInt,
    default: '40',
    doc: 'Workflow tasks one worker runs at once.',
  },
  WORKER_WORKFLOW_TASK_POLLERS: {
    // Temporal wants at least 2: one for the sticky queue, one for the normal one.
    parse: z.coerce
      .number('must be a number')
      .int('must be a whole number')
      .min(2, 'must be at least 2 (one poll for the sticky queue, one for the normal queue)'),
    default: '10',
    doc:
      'Long polls one worker keeps open for workflow tasks (sticky and normal queue together; ' +
      "the SDK's default). At most WORKER_MAX_CONCURRENT_WORKFLOW_TASKS.",
  },
  WORKER_ACTIVITY_TASK_POLLERS: {
    parse: positiveInt,
    default: '10',
    doc:
      "Long polls one worker keeps open for activity tasks (the SDK's default). At most " +
      'WORKER_MAX_CONCURRENT_ACTIVITIES.',
  },
  WORKER_MAX_CACHED_WORKFLOWS: {
    parse: positiveInt,
    default: '250',
    doc:
      "Workflows one worker keeps in its sticky cache. Bounds the worker's memory; an evicted " +
      'workflow is replayed from history on its next task (correct, only slower).',
  },
  WORKER_VERSIONING: {
    parse: z.enum(['pinned', 'off'], 'must be pinned or off'),
    default: 'pinned',
    doc:
      'pinned: the worker runs as a build of a Temporal worker deployment (build ID: its ' +
      "workflow bundle's content hash), each run finishes on the build it started on, and the " +
      "worker serves older builds' runs from their stored code until they close " +
      '(docs/deploying.md). off: unversioned (for a server without worker deployments).',
  },
  WORKER_DEPLOYMENT_NAME: {
    parse: nonEmpty,
    doc:
      'The Temporal worker deployment this worker is a build of. Default: the task queue ' +
      '(TEMPORAL_TASK_QUEUE): one deployment per worker service.',
  },
  WORKER_MAKE_CURRENT: {
    parse: z.enum(['auto', 'never', 'always'], 'must be auto, never or always'),
    default: 'auto',
    doc:
      "Whether a starting worker makes its build the deployment's current one (new runs start " +
      'on it). auto: only a build the deployment never had current, newer than the current ' +
      "one (a restart never undoes an operator's rollback); never: the deploy does it " +
      '(temporal worker deployment set-current-version); always: every start (docs/deploying.md).',
  },
  WORKER_MAX_DRAINS: {
    parse: z.coerce
      .number('must be a number')
      .int('must be a whole number')
      .min(0, 'must be 0 or more'),
    default: '3',
    doc:
      'Other builds one worker process serves at once from their stored code (each a drain ' +
      'worker: see docs/deploying.md for its cost). When more builds hold runs, their drains ' +
      'take turns (WORKER_DRAIN_TURN_MS). 0: none; every build runs on its own workers.',
  },
  WORKER_DRAIN_TURN_MS: {
    parse: z.coerce
      .number('must be a number of milliseconds')
      .int('must be a number of milliseconds')
      .min(1000, 'must be at least 1000 (ms)'),
    default: '60000',
    doc:
      "How often a worker reads its deployment's builds and starts or stops drains, and so the " +
      "length of a drain's turn when more builds hold runs than WORKER_MAX_DRAINS: a build " +
      'with work waiting gets a drain within a few turns (docs/deploying.md, "Drains take turns").',
  },
  BRIDGE_START_CONCURRENCY: {
    parse: positiveInt,
    default: '32',
    doc:
      'Starts the bridge has in flight at once, at most, over every partition it reads (the ' +
      'scheduler picks which: docs/bridge.md). More starts more at once; fewer puts a quiet ' +
      "tenant's start behind fewer others at Temporal.",
  },
  BRIDGE_PARTITIONS_CONCURRENCY: {
    parse: positiveInt,
    default: '3',
    doc: 'Fetched batches one bridge takes in at once (decoded, translated, looked up in the ledger).',
  },
  BRIDGE_MAX_MESSAGE_BYTES: {
    parse: positiveInt,
    default: '1048576',
    doc: 'Largest accepted message value; larger ones go to the DLQ as `oversized`.',
  },
  BRIDGE_METRICS_PORT: {
    parse: portOrZero,
    default: '9464',
    doc: "Port of the bridge's Prometheus endpoint (GET /metrics); 0 picks a free one.",
  },
  BRIDGE_SESSION_TIMEOUT_MS: {
    parse: z.coerce
      .number('must be a number of milliseconds')
      .int('must be a number of milliseconds')
      .min(3000, 'must be at least 3000 (ms)'),
    default: '30000',
    doc:
      "Kafka consumer-group session timeout. A bridge that dies holds its partitions until this runs out, so it is also how long a crashed bridge's partitions wait before a restarted or " +
      'surviving bridge takes them over. Lower means faster takeover but more rebalances on a ' +
      'slow network or a stalled process; the broker accepts 6000..1800000 by default.',
  },
  BRIDGE_DLQ_RETENTION_DAYS: {
    parse: positiveInt.max(36_500, 'must be at most 36500 (days)'),
    default: '30',
    doc:
      'Days a DLQ topic keeps its messages (`retention.ms`), set when onceflow creates the DLQ ' +
      'topic and raised on an existing one that keeps them for less. Long, because a dead ' +
      'letter waits for a person: it must outlive a holiday, not a broker default of 7 days.',
  },
  BRIDGE_SCHEMA_UNKNOWN_AFTER: {
    parse: duration,
    default: '1m',
    doc:
      "How long a value's schema ID may stay unknown to a Schema Registry that answers for other " +
      'schemas (or lists its subjects) before the value is dead-lettered `schema-unknown`, with ' +
      'its bytes and `dlq-schema-id`, for `dlq replay` once the schema is registered. Meanwhile ' +
      'its partition waits (paused; the others go on). A registry that answers nothing stays a stall.',
  },
  BRIDGE_DLQ_TOPICS: {
    parse: z.enum(['create', 'require'], 'must be create or require'),
    default: 'create',
    doc:
      "What the bridge does at start about a route topic's DLQ topic (`<topic>.dlq`) that does " +
      "not exist: create it (the source topic's partition count, BRIDGE_DLQ_REPLICATION_FACTOR, " +
      "the DLQ's retention and size limits), or refuse to start naming it (`require`: a bridge " +
      'whose Kafka principal may not create topics; `npx onceflow setup` creates them).',
  },
  BRIDGE_DLQ_REPLICATION_FACTOR: {
    parse: positiveInt,
    doc:
      "Replication factor of the DLQ topics the bridge or `onceflow setup` creates. Default: the cluster's " +
      '`default.replication.factor` (its `min.insync.replicas` pinned on the topic).',
    shownDefault: "the cluster's",
  },
  BRIDGE_MODE: {
    parse: z.enum(['live', 'backfill'], 'must be live or backfill'),
    default: 'live',
    doc:
      '`backfill`: the bridge re-reads its topics in a consumer group of its own ' +
      '(`<KAFKA_GROUP_ID>-backfill`) and starts its runs behind live traffic (docs/bridge.md, "Backfills").',
  },
  BRIDGE_BACKFILL_FROM: {
    parse: isoTime,
    doc:
      'Where a backfill starts reading when its group has no offsets yet: an ISO time (the first ' +
      'offset written at or after it); unset: the oldest retained offset.',
  },
  BRIDGE_EXTRA_ROUTES: {
    parse: nonEmpty,
    doc: 'JSON of extra routes: event type → workflow type or { workflowType, identity, workflowIdPrefix }.',
  },
  LEDGER_RETENTION_DAYS: {
    parse: positiveInt,
    default: '30',
    doc:
      'Days the ledger remembers an identity (the ledger reaper deletes older rows); the reaper ' +
      'refuses a value below BRIDGE_DLQ_RETENTION_DAYS, since a DLQ entry replayed after its ' +
      'row was reaped would start its workflow again.',
  },
  PROVIDERS_URL: {
    parse: httpUrl,
    default: 'http://127.0.0.1:4010',
    doc: 'Base URL of the sandbox providers (payments, mail); their server listens on its port.',
  },
  PROVIDERS_DB_SCHEMA: {
    parse: schemaName,
    default: 'sandbox',
    doc: "Postgres schema holding the sandbox providers' key store and ledgers.",
  },
  PROVIDERS_KEY_TTL: {
    parse: duration,
    default: '24h',
    doc:
      'How long the sandbox providers remember an idempotency key and its stored response ' +
      '(Stripe keeps them 24 h): a key sent again later acts again, as at a real provider. ' +
      'The order claim, not the provider, is what keeps an order from acting twice.',
  },
  TENANT_WEIGHTS: {
    parse: tenantWeights,
    default: '{}',
    doc:
      'JSON of tenant → fairness weight (0.001..1000; others 1): a tenant of weight 2 gets twice ' +
      "the share of a busy task queue. Set on Temporal's task queues at worker start.",
  },
  PROVIDER_RATE_LIMITS: {
    parse: providerRateLimits,
    default: '{}',
    doc:
      'JSON of provider → the most calls it takes in any one second, or { perSecond, perTenant }: ' +
      'the calls are paced one at a time across every worker (a slot in Postgres), at ' +
      "PROVIDER_RATE_SHARE of it, and Temporal's queue limit at that rate bounds what waits.",
  },
  ORDERS_EVENTS_TOPIC: {
    parse: nonEmpty,
    default: 'order-events',
    doc:
      'Topic the order domain publishes OrderFulfilled to (a publishing step: event ID = the ' +
      "step's key, record key = the order ID). Created by `npm run setup` beside the source topics.",
  },
  ORDER_TRANSIENT_RETRY_WINDOW: {
    parse: duration,
    default: '1h',
    doc:
      'How long an order step keeps retrying a transient provider cause (connection refused, ' +
      'timeout, 429, 5xx, 409 in flight) with the same idempotency key before the order parks ' +
      'in needs_attention: a duration such as `90s`, `30m`, `1h`, at most `24h` (a bound on ' +
      "one waiting episode's history). Read by the worker, which hands it to the workflow " +
      'inside each transient failure (src/activities/provider-http.ts).',
  },
  ORDER_TRANSIENT_RETRY_INTERVAL: {
    parse: duration,
    default: '30s',
    doc:
      "The pause between attempts of a waiting step's waiting round (one activity Temporal " +
      "retries): long enough not to hammer a provider that is down. A provider's Retry-After " +
      'lengthens it; it is at most half of what is left of ORDER_TRANSIENT_RETRY_WINDOW.',
  },
  PROVIDERS_ADMIN_TOKEN: {
    parse: nonEmpty,
    doc:
      "Bearer token of the sandbox providers' admin API (/admin/*) and mail log (GET " +
      '/v1/emails). Unset: those routes are refused. The local stack generates one.',
    secret: true,
  },
  ONCEFLOW_ENCRYPTION: {
    parse: z.enum(['on', 'off'], 'must be on or off'),
    default: 'on',
    doc:
      '`on`: every Temporal payload is AES-256-GCM encrypted and a key is required ' +
      '(ONCEFLOW_ENCRYPTION_KEYS or ONCEFLOW_ENCRYPTION_KEY_FILE; the local stack makes a dev ' +
      'key). `off` must be said explicitly: histories then hold customer data in plaintext.',
  },
  ONCEFLOW_ENCRYPTION_STRICT: {
    parse: bool,
    default: 'false',
    doc:
      '`true`: a payload that is not encrypted is refused when decoded (the workflow task or ' +
      'the call fails) instead of passed through, so nothing written without a key (a forged ' +
      'signal, a process left on ONCEFLOW_ENCRYPTION=off) is ever acted on. Off by default so ' +
      'histories written before encryption was turned on stay readable; turn it on once they ' +
      'have left the namespace retention (a new install can at once: docker-compose does).',
    shownDefault: 'off',
  },
  ONCEFLOW_ENCRYPTION_KEYS: {
    parse: nonEmpty,
    doc: '`id1:base64key,id2:base64key`: the first key encrypts, all decrypt (rotation).',
    secret: true,
  },
  ONCEFLOW_ENCRYPTION_KEY_FILE: {
    parse: nonEmpty,
    doc: 'A file with the same lines (one key per line); ignored when ONCEFLOW_ENCRYPTION_KEYS is set.',
  },
  CODEC_SERVER_HOST: {
    parse: nonEmpty,
    default: '127.0.0.1',
    doc: 'Interface the codec server binds; 0.0.0.0 only inside a container.',
  },
  CODEC_SERVER_PORT: {
    parse: portOrZero,
    default: '8089',
    doc: 'Port of the codec server; 0 picks a free one.',
  },
  CODEC_SERVER_AUTH: {
    parse: z.enum(['token', 'none'], 'must be token or none'),
    default: 'token',
    doc:
      '`token`: every request needs `Authorization: Bearer $CODEC_SERVER_TOKEN`. `none`: no ' +
      'authentication, refused unless CODEC_SERVER_HOST is a loopback address (the local ' +
      "stack's dev UI, or an authenticating proxy on the same host in front of it: docs/security.md, " +
      '"The codec server and the Web UI").',
  },
  CODEC_SERVER_TOKEN: { parse: nonEmpty, doc: 'Bearer token of the codec server.', secret: true },
  CUSTOMER_ID_SEARCH_ATTRIBUTE: {
    parse: z.enum(['hmac', 'plain'], 'must be hmac or plain'),
    default: 'hmac',
    doc:
      'How the bridge fills the CustomerId search attribute, which Temporal stores unencrypted: ' +
      '`hmac` = `c_` + HMAC-SHA256 of the ID (key ONCEFLOW_SEARCH_HMAC_KEY, else derived from ' +
      'the current encryption key); `plain` = the ID as sent.',
  },
  ONCEFLOW_SEARCH_HMAC_KEY: {
    parse: base64Key,
    doc: 'Base64, at least 16 bytes: keeps CustomerId HMACs stable across key rotations.',
    secret: true,
  },
  ONCEFLOW_LOCAL_STACK: {
    parse: z.enum(['auto', 'off'], 'must be auto or off'),
    default: 'auto',
    doc:
      '`auto`: a setting the environment leaves unset is taken from the running local stack ' +
      '(`npm run stack`, the demo), found through its state file (ONCEFLOW_STATE_DIR), so ' +
      'every command works in a new shell with nothing exported; never when NODE_ENV=production ' +
      'or when TEMPORAL_ADDRESS, KAFKA_BROKERS or DATABASE_URL is set. `off`: environment and ' +
      'defaults only (src/config/local-stack.ts).',
  },
  ONCEFLOW_STATE_DIR: {
    parse: nonEmpty,
    doc:
      "The local stack's state folder (binaries, data, logs, dev key, `stack.json`), where " +
      'the stack writes its state and onceflow processes look for it.',
    shownDefault: '`.onceflow/`',
  },
  ONCEFLOW_TRACING: {
    parse: z.enum(['on', 'off'], 'must be on or off'),
    default: 'off',
    doc:
      '`on`: one OpenTelemetry trace per order, from the Kafka record (its `traceparent` ' +
      'header, else a new trace) through the bridge, the workflow, its activities and the ' +
      'provider calls, exported with OTEL_TRACES_EXPORTER. `off`: no SDK is started and the ' +
      'tracer is a no-op. `npm run stack` with it on also starts a Zipkin (docs/tracing.md).',
  },
  OTEL_TRACES_EXPORTER: {
    parse: z.enum(['otlp', 'zipkin'], 'must be otlp or zipkin'),
    default: 'otlp',
    doc:
      'Where spans go when ONCEFLOW_TRACING=on (the standard OpenTelemetry variable): `otlp` ' +
      'over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (the OTLP exporter reads the other standard ' +
      'OTEL_EXPORTER_OTLP_* variables itself), `zipkin` to OTEL_EXPORTER_ZIPKIN_ENDPOINT.',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    parse: httpUrl,
    doc: 'OTLP/HTTP collector base URL (spans go to `/v1/traces` under it).',
    shownDefault: '`http://localhost:4318`',
  },
  OTEL_EXPORTER_ZIPKIN_ENDPOINT: {
    parse: httpUrl,
    doc: "Zipkin's span intake (`.../api/v2/spans`) for OTEL_TRACES_EXPORTER=zipkin.",
    shownDefault: '`http://localhost:9411/api/v2/spans`',
  },
  ONCEFLOW_TRACE_URL: {
    parse: nonEmpty.refine(
      (s) => s.includes('{traceId}') && URL.canParse(s.replace('{traceId}', '0')),
      'must be a URL containing {traceId}, e.g. http://127.0.0.1:9411/zipkin/traces/{traceId}',
    ),
    doc:
      "A trace's page in the trace viewer, `{traceId}` replaced by the ID: shown in the Web " +
      "UI's workflow details and by the demo. Unset: no link (the local stack sets its Zipkin's).",
  },
  ...SCHEDULING_SETTINGS,
  CODEC_SERVER_CORS_ORIGIN: {
    parse: httpUrl,
    doc: 'The one browser origin allowed by CORS; default: the origin of TEMPORAL_UI_URL.',
    shownDefault: "the UI's origin",
  },
} as const satisfies Record<string, SettingSpec>;
