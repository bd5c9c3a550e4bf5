import { KeyRingError, parseKeyRing, readKeyFile, type KeyRing } from './key-ring';
import { ConfigError } from './config-error';
import { parseEnv, type Env, type SettingProblem } from './env';
import type { LivenessProbe } from './local-stack-file';
import { fromStackNamed, keyHintOf, layerSettings, type ConfigOrigin } from './sources';
import { schemaRegistryOf, schemaRegistryProblems } from './schema-registry';
import { schedulingOf } from './scheduling-config';

/** Payload encryption (src/temporal/data-converter.ts). */
export interface EncryptionConfig {
  /** True only when ONCEFLOW_ENCRYPTION=off was set explicitly. */
  off: boolean;
  /** The key ring; undefined when no key is configured (see requireEncryptionKey). */
  ring?: KeyRing;
  /** IDs of the ring's keys, current first (safe to log). */
  keyIds: string[];
  /** ONCEFLOW_ENCRYPTION_STRICT: refuse payloads that are not encrypted. */
  strict: boolean;
}

/**
 * The typed settings every component receives. Its shape follows from the settings table
 * (src/config/settings.ts: types and defaults) and the mapping below (where each one goes);
 * `origin` says where each value came from (environment, local stack, default).
 */
export type Config = ReturnType<typeof toConfig> & {
  encryption: EncryptionConfig;
  origin: ConfigOrigin;
};

export type TemporalTlsConfig = NonNullable<Config['temporal']['tls']>;

/** Options of loadConfig. */
export interface LoadConfigOptions {
  /**
   * Take settings the environment leaves unset from the running local stack
   * (src/config/local-stack.ts: when it is looked for, and the precedence). `true` for entry
   * points (loadConfigOrExit, the ops CLI); a probe object in tests. Default false: the
   * environment and the defaults only, so a library caller or a test never picks up a stack.
   * Example: `loadConfig(process.env, { localStack: true })`.
   */
  localStack?: boolean | LivenessProbe;
}

/**
 * Reads and validates the settings. Throws ConfigError naming every bad setting, so an entry
 * point stops at start instead of failing later on first use.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: LoadConfigOptions = {},
): Config {
  const layered = layerSettings(env, options.localStack);
  const parsed = parseEnv(layered.env);
  if (!parsed.ok) throw new ConfigError(fromStackNamed(parsed.problems, layered.origin));
  const e = parsed.env;
  const problems = crossCheck(e);
  const encryption = loadKeyRing(e, problems);
  if (problems.length > 0) throw new ConfigError(fromStackNamed(problems, layered.origin));
  return { ...toConfig(e), encryption, origin: layered.origin };
}

function loadKeyRing(e: Env, problems: SettingProblem[]): EncryptionConfig {
  const off = e.ONCEFLOW_ENCRYPTION === 'off';
  const strict = e.ONCEFLOW_ENCRYPTION_STRICT;
  if (off && strict) {
    problems.push({
      setting: 'ONCEFLOW_ENCRYPTION_STRICT',
      message: 'is true but ONCEFLOW_ENCRYPTION=off: nothing could be read',
    });
  }
  try {
    const ring = e.ONCEFLOW_ENCRYPTION_KEYS
      ? parseKeyRing(e.ONCEFLOW_ENCRYPTION_KEYS, 'ONCEFLOW_ENCRYPTION_KEYS')
      : e.ONCEFLOW_ENCRYPTION_KEY_FILE
        ? readKeyFile(e.ONCEFLOW_ENCRYPTION_KEY_FILE, 'ONCEFLOW_ENCRYPTION_KEY_FILE')
        : undefined;
    return {
      off,
      ring: off ? undefined : ring,
      keyIds: ring ? [...ring.byId.keys()] : [],
      strict,
    };
  } catch (err) {
    if (!(err instanceof KeyRingError)) throw err;
    problems.push({ setting: err.setting, message: err.message.slice(err.setting.length + 2) });
    return { off, keyIds: [], strict };
  }
}

/**
 * Every process that talks to Temporal calls this at start (loadConfigOrExit, and the data
 * converter): without a key it refuses to run, unless encryption was turned off by name.
 */
export function requireEncryptionKey(
  config: Pick<Config, 'encryption'> & { origin?: ConfigOrigin },
): void {
  if (config.encryption.off || config.encryption.ring) return;
  throw new ConfigError(
    [
      {
        setting: 'ONCEFLOW_ENCRYPTION_KEYS',
        message:
          'is required (or ONCEFLOW_ENCRYPTION_KEY_FILE): payloads are encrypted by default; ' +
          'set ONCEFLOW_ENCRYPTION=off to run without encryption',
      },
    ],
    { hint: keyHintOf(config.origin) },
  );
}

function crossCheck(e: Env): SettingProblem[] {
  const problems: SettingProblem[] = [];
  if (Boolean(e.TEMPORAL_TLS_CERT_PATH) !== Boolean(e.TEMPORAL_TLS_KEY_PATH)) {
    const missing = e.TEMPORAL_TLS_CERT_PATH ? 'TEMPORAL_TLS_KEY_PATH' : 'TEMPORAL_TLS_CERT_PATH';
    problems.push({ setting: missing, message: 'client certificate and key are set together' });
  }
  if (e.TEMPORAL_TLS === false && (e.TEMPORAL_TLS_CERT_PATH || e.TEMPORAL_API_KEY)) {
    problems.push({
      setting: 'TEMPORAL_TLS',
      message: 'is false but a client certificate or API key needs TLS',
    });
  }
  if (e.KAFKA_SASL_MECHANISM) {
    if (!e.KAFKA_SASL_USERNAME)
      problems.push({
        setting: 'KAFKA_SASL_USERNAME',
        message: 'is required with KAFKA_SASL_MECHANISM',
      });
    if (!e.KAFKA_SASL_PASSWORD)
      problems.push({
        setting: 'KAFKA_SASL_PASSWORD',
        message: 'is required with KAFKA_SASL_MECHANISM',
      });
  } else if (e.KAFKA_SASL_USERNAME || e.KAFKA_SASL_PASSWORD) {
    problems.push({
      setting: 'KAFKA_SASL_MECHANISM',
      message: 'is required when SASL credentials are set',
    });
  }
  // PLAIN sends the password itself on every connection (SCRAM never does): without TLS
  // anyone on the path reads it. Said out loud, or refused.
  const kafkaTls = Boolean(e.KAFKA_SSL || e.KAFKA_SSL_CA_PATH);
  if (e.KAFKA_SASL_MECHANISM === 'plain' && !kafkaTls && !e.KAFKA_SASL_PLAIN_WITHOUT_TLS) {
    problems.push({
      setting: 'KAFKA_SASL_MECHANISM',
      message:
        'is plain but KAFKA_SSL is off: the password would cross the network in clear; turn ' +
        'KAFKA_SSL on, use scram-sha-256/512, or set KAFKA_SASL_PLAIN_WITHOUT_TLS=true',
    });
  }
  problems.push(...schemaRegistryProblems(e));
  // pg lets TLS parameters in the URL override DATABASE_SSL (`?sslmode=disable` would turn TLS
  // off, `?sslmode=require` would drop verification): one place decides, so the URL may not.
  const urlTls = [...new URL(e.DATABASE_URL).searchParams.keys()].filter((k) =>
    /^(ssl|sslmode|sslrootcert|sslcert|sslkey|sslnegotiation|uselibpqcompat)$/i.test(k),
  );
  if (urlTls.length > 0) {
    problems.push({
      setting: 'DATABASE_URL',
      message: `must not set ${urlTls.join(', ')}: it would override DATABASE_SSL (=${e.DATABASE_SSL}); use DATABASE_SSL and DATABASE_SSL_CA_PATH`,
    });
  }
  // One waiting episode's history grows by a round per interval: the window bounds it.
  if (e.ORDER_TRANSIENT_RETRY_WINDOW > 24 * 3_600_000)
    problems.push({ setting: 'ORDER_TRANSIENT_RETRY_WINDOW', message: 'must be at most 24h' });
  if (e.DATABASE_SSL_CA_PATH && e.DATABASE_SSL === 'disable') {
    problems.push({
      setting: 'DATABASE_SSL',
      message: 'is disable but DATABASE_SSL_CA_PATH is set',
    });
  }
  return problems;
}

/** Where each setting goes in Config; the types come from the settings' parsers. */
function toConfig(e: Env) {
  // An API key or a client certificate only makes sense over TLS (Temporal Cloud), so either
  // one turns TLS on unless the operator said otherwise.
  const tlsOn =
    e.TEMPORAL_TLS ??
    Boolean(e.TEMPORAL_API_KEY || e.TEMPORAL_TLS_CERT_PATH || e.TEMPORAL_TLS_CA_PATH);
  return {
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiUrl: e.TEMPORAL_UI_URL.replace(/\/+$/, ''),
      /** undefined = plaintext (local dev server). */
      tls: tlsOn
        ? {
            certPath: e.TEMPORAL_TLS_CERT_PATH,
            keyPath: e.TEMPORAL_TLS_KEY_PATH,
            caPath: e.TEMPORAL_TLS_CA_PATH,
            serverName: e.TEMPORAL_TLS_SERVER_NAME,
          }
        : undefined,
      apiKey: e.TEMPORAL_API_KEY,
    },
    kafka: {
      brokers: e.KAFKA_BROKERS,
      clientId: e.KAFKA_CLIENT_ID,
      topics: e.KAFKA_TOPICS,
      partitions: e.KAFKA_TOPIC_PARTITIONS,
      groupId: e.KAFKA_GROUP_ID,
      /** undefined = plaintext. */
      ssl: e.KAFKA_SSL || e.KAFKA_SSL_CA_PATH ? { caPath: e.KAFKA_SSL_CA_PATH } : undefined,
      sasl: e.KAFKA_SASL_MECHANISM
        ? {
            mechanism: e.KAFKA_SASL_MECHANISM,
            username: e.KAFKA_SASL_USERNAME!,
            password: e.KAFKA_SASL_PASSWORD!,
          }
        : undefined,
    },
    /** undefined: no registry; wire-format values are poison (src/kafka/registry-decoder.ts). */
    schemaRegistry: schemaRegistryOf(e),
    database: {
      url: e.DATABASE_URL,
      ssl: e.DATABASE_SSL,
      sslCaPath: e.DATABASE_SSL_CA_PATH,
      schema: e.DATABASE_SCHEMA,
      poolMax: e.DATABASE_POOL_MAX,
      /** Connect timeout (ms). */
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      /** statement_timeout (ms); 0 = off. */
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      /** idle_in_transaction_session_timeout (ms); 0 = off. */
      idleInTransactionTimeoutMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    worker: {
      /** Prometheus port of the Temporal runtime's exporter; 0 = off. */
      metricsPort: e.WORKER_METRICS_PORT,
      metricsHost: e.WORKER_METRICS_HOST,
      maxConcurrentActivities: e.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentWorkflowTasks: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxCachedWorkflows: e.WORKER_MAX_CACHED_WORKFLOWS,
      workflowTaskPollers: e.WORKER_WORKFLOW_TASK_POLLERS,
      activityTaskPollers: e.WORKER_ACTIVITY_TASK_POLLERS,
      /** WORKER_VERSIONING: `pinned` (worker deployments, runs finish on their build) or `off`. */
      versioning: e.WORKER_VERSIONING,
      /** WORKER_DEPLOYMENT_NAME; undefined: the task queue's name. */
      deploymentName: e.WORKER_DEPLOYMENT_NAME,
      /** WORKER_MAKE_CURRENT: `auto`, `never` or `always` (src/worker/build-current.ts). */
      makeCurrent: e.WORKER_MAKE_CURRENT,
      /** WORKER_MAX_DRAINS: other builds one process serves at once (0: none). */
      maxDrains: e.WORKER_MAX_DRAINS,
      /** WORKER_DRAIN_TURN_MS: between two refreshes of the builds; a drain's turn. */
      drainTurnMs: e.WORKER_DRAIN_TURN_MS,
      ...schedulingOf(e).worker,
    },
    bridge: {
      startConcurrency: e.BRIDGE_START_CONCURRENCY,
      partitionsConcurrency: e.BRIDGE_PARTITIONS_CONCURRENCY,
      maxMessageBytes: e.BRIDGE_MAX_MESSAGE_BYTES,
      metricsPort: e.BRIDGE_METRICS_PORT,
      metricsHost: e.BRIDGE_METRICS_HOST,
      /** Consumer-group session timeout (ms); the heartbeat runs at a tenth of it, at most 3 s. */
      sessionTimeoutMs: e.BRIDGE_SESSION_TIMEOUT_MS,
      dlqRetentionDays: e.BRIDGE_DLQ_RETENTION_DAYS,
      /** BRIDGE_SCHEMA_UNKNOWN_AFTER in ms (src/kafka-bridge/schema-misses.ts). */
      schemaUnknownAfterMs: e.BRIDGE_SCHEMA_UNKNOWN_AFTER,
      /** What the bridge does at start about a missing DLQ topic (src/kafka/dlq-topics.ts). */
      dlqTopics: e.BRIDGE_DLQ_TOPICS,
      /** Replication factor of created DLQ topics; undefined: the cluster's default. */
      dlqReplicationFactor: e.BRIDGE_DLQ_REPLICATION_FACTOR,
      /** JSON of extra routes (see src/events/routes.ts, parseExtraRoutes). */
      extraRoutes: e.BRIDGE_EXTRA_ROUTES,
      /** BRIDGE_MODE: `live`, or `backfill` (own consumer group, runs behind live ones). */
      mode: e.BRIDGE_MODE,
      /** BRIDGE_BACKFILL_FROM in ms since the epoch; undefined: the oldest retained offset. */
      backfillFromMs: e.BRIDGE_BACKFILL_FROM,
      ledgerRetentionDays: e.LEDGER_RETENTION_DAYS,
      ...schedulingOf(e).bridge,
    },
    fairness: {
      /** TENANT_WEIGHTS: tenant → fairness weight, set on the task queues at worker start. */
      tenantWeights: e.TENANT_WEIGHTS,
      /** PROVIDER_RATE_LIMITS: provider → its calls per second (and per tenant). */
      providerRateLimits: e.PROVIDER_RATE_LIMITS,
      ...schedulingOf(e).fairness,
    },
    providers: {
      /** Base URL of the payment and mail APIs (no trailing slash). */
      url: e.PROVIDERS_URL.replace(/\/+$/, ''),
      dbSchema: e.PROVIDERS_DB_SCHEMA,
      /** Secret token of the admin API and mail log; undefined = those routes are closed. */
      adminToken: e.PROVIDERS_ADMIN_TOKEN,
      /** PROVIDERS_KEY_TTL in ms: how long the sandbox keeps an idempotency key. */
      keyTtlMs: e.PROVIDERS_KEY_TTL,
    },
    searchAttributes: {
      customerId: e.CUSTOMER_ID_SEARCH_ATTRIBUTE,
      /** HMAC key; undefined = derived from the current encryption key. */
      hmacKey: e.ONCEFLOW_SEARCH_HMAC_KEY
        ? Buffer.from(e.ONCEFLOW_SEARCH_HMAC_KEY, 'base64')
        : undefined,
    },
    codecServer: {
      host: e.CODEC_SERVER_HOST,
      port: e.CODEC_SERVER_PORT,
      auth: e.CODEC_SERVER_AUTH,
      token: e.CODEC_SERVER_TOKEN,
      /** Origin (scheme://host:port) the Web UI is served from. */
      corsOrigin: new URL(e.CODEC_SERVER_CORS_ORIGIN ?? e.TEMPORAL_UI_URL).origin,
    },
    orders: {
      /** ORDER_TRANSIENT_RETRY_WINDOW in ms: how long a step retries a transient cause. */
      transientRetryWindowMs: e.ORDER_TRANSIENT_RETRY_WINDOW,
      /** ORDER_TRANSIENT_RETRY_INTERVAL in ms: the pause between attempts of a waiting round. */
      transientRetryIntervalMs: e.ORDER_TRANSIENT_RETRY_INTERVAL,
      /** ORDERS_EVENTS_TOPIC: where the order domain publishes its events. */
      eventsTopic: e.ORDERS_EVENTS_TOPIC,
    },
    tracing: {
      /** ONCEFLOW_TRACING=on: spans are made and exported (src/tracing). */
      on: e.ONCEFLOW_TRACING === 'on',
      exporter: e.OTEL_TRACES_EXPORTER,
      /** undefined: the OTLP exporter reads OTEL_EXPORTER_OTLP_* from the environment. */
      otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
      zipkinEndpoint: e.OTEL_EXPORTER_ZIPKIN_ENDPOINT,
      /** Template of a trace's page, `{traceId}` replaced; undefined: no links. */
      traceUrl: e.ONCEFLOW_TRACE_URL,
    },
    logLevel: e.LOG_LEVEL,
  };
}
