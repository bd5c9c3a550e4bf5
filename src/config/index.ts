import { z } from 'zod';
import { parseDurationMs } from '../util/duration';
import { ConfigError } from './config-error';
import { KeyRingError, parseKeyRing, readKeyFile, type KeyRing } from '../temporal/key-ring';
import {
  bool,
  hostPort,
  hostPortList,
  nameList,
  duration,
  nonEmpty,
  positiveInt,
  postgresUrl,
  url,
} from './env-schema';

export { ConfigError } from './config-error';

/**
 * Every environment variable onceflow reads, with its default. This is the only place that
 * reads process.env for application settings; everything else receives a typed Config.
 */
export const DEFAULTS = {
  /** Temporal frontend gRPC address. */
  TEMPORAL_ADDRESS: '127.0.0.1:7233',
  /** Temporal namespace the worker polls and the bridge starts workflows in. */
  TEMPORAL_NAMESPACE: 'default',
  /** Task queue shared by the worker and the bridge. */
  TEMPORAL_TASK_QUEUE: 'onceflow-orders',
  /** Base URL of the Temporal Web UI, used to print links to runs. */
  TEMPORAL_UI_URL: 'http://127.0.0.1:8233',
  /** Comma-separated bootstrap brokers. */
  KAFKA_BROKERS: '127.0.0.1:9092',
  /** Kafka client id reported to the brokers. */
  KAFKA_CLIENT_ID: 'onceflow',
  /** Comma-separated source topics; each has a DLQ topic `<topic>.dlq`. */
  KAFKA_TOPICS: 'orders',
  /** Partitions used when onceflow creates its topics (existing topics are left alone). */
  KAFKA_TOPIC_PARTITIONS: '6',
  /** Consumer group of the bridge. */
  KAFKA_GROUP_ID: 'onceflow-bridge',
  /** Postgres connection URL (ledger, inventory, provider sandboxes). */
  DATABASE_URL: 'postgres://onceflow@127.0.0.1:55432/onceflow',
  /** Schema of onceflow's tables (ledger, inventory); tests and side-by-side installs use their own. */
  DATABASE_SCHEMA: 'public',
  /** Connections per process in the Postgres pool. */
  DATABASE_POOL_MAX: '10',
  /** How long opening a Postgres connection may take before it fails (and is retried). */
  DATABASE_CONNECT_TIMEOUT_MS: '5000',
  /**
   * Postgres statement_timeout: a statement running longer (e.g. waiting for a lock someone
   * else holds) is cancelled (SQLSTATE 57014) and retried by its caller, so a hung query
   * cannot stop the bridge. 0 turns it off.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: '15000',
  /** Postgres idle_in_transaction_session_timeout: ends a session left idle inside a transaction. 0 = off. */
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '30000',
  /** pino log level. */
  LOG_LEVEL: 'info',
  /**
   * Port of the worker's Prometheus endpoint (the Temporal runtime's exporter, GET /metrics);
   * 0 turns it off (the runtime cannot report a randomly chosen port).
   */
  WORKER_METRICS_PORT: '9465',
  /** Interface of the worker's metrics endpoint; `0.0.0.0` in a container a scraper reaches. */
  WORKER_METRICS_HOST: '127.0.0.1',
  /** Activities one worker runs at once. */
  WORKER_MAX_CONCURRENT_ACTIVITIES: '100',
  /** Workflow tasks one worker runs at once. */
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '40',
  /**
   * Workflows one worker keeps in its sticky cache. Bounds the worker's memory; an evicted
   * workflow is replayed from history on its next task (correct, only slower).
   */
  WORKER_MAX_CACHED_WORKFLOWS: '250',
  /** Messages of different keys in one partition's batch started at once, at most. */
  BRIDGE_START_CONCURRENCY: '32',
  /** Partitions one bridge handles at once. */
  BRIDGE_PARTITIONS_CONCURRENCY: '3',
  /** Largest accepted message value; larger ones go to the DLQ as `oversized`. */
  BRIDGE_MAX_MESSAGE_BYTES: '1048576',
  /** Port of the bridge's Prometheus endpoint (GET /metrics); 0 picks a free one. */
  BRIDGE_METRICS_PORT: '9464',
  /** Interface of the bridge's metrics endpoint; `0.0.0.0` in a container a scraper reaches. */
  BRIDGE_METRICS_HOST: '127.0.0.1',
  /**
   * Kafka consumer-group session timeout. A bridge that dies holds its partitions until this
   * runs out, so it is also how long a crashed bridge's partitions wait before a restarted or
   * surviving bridge takes them over. Lower means faster takeover but more rebalances on a slow
   * network or a stalled process; the broker accepts 6000..1800000 by default.
   */
  BRIDGE_SESSION_TIMEOUT_MS: '30000',
  /**
   * Days a DLQ topic keeps its messages (`retention.ms`), set when onceflow creates the DLQ
   * topic and raised on an existing one that keeps them for less. Long, because a dead
   * letter waits for a person: it must outlive a holiday, not a broker default of 7 days.
   */
  BRIDGE_DLQ_RETENTION_DAYS: '30',
  /** Days the ledger remembers an identity (`npm run ledger:reap`). */
  LEDGER_RETENTION_DAYS: '30',
  /** Base URL of the sandbox providers (payments, mail); `npm run providers` listens on its port. */
  PROVIDERS_URL: 'http://127.0.0.1:4010',
  /** Postgres schema holding the sandbox providers' key store and ledgers. */
  PROVIDERS_DB_SCHEMA: 'sandbox',
  /**
   * How long an order step keeps retrying a transient provider cause (connection refused,
   * timeout, 429, 5xx, 409 in flight) with the same idempotency key before the order parks in
   * needs_attention: a duration such as `90s`, `30m`, `1h`. Read by the worker, which hands it
   * to the workflow inside each transient failure (see src/activities/provider-http.ts).
   */
  ORDER_TRANSIENT_RETRY_WINDOW: '1h',
  /**
   * `on` (default): every Temporal payload is AES-256-GCM encrypted and a key is required
   * (ONCEFLOW_ENCRYPTION_KEYS or ONCEFLOW_ENCRYPTION_KEY_FILE; the local stack makes a dev key).
   * `off` must be said explicitly: histories then hold customer data in plaintext.
   */
  ONCEFLOW_ENCRYPTION: 'on',
  /** Interface the codec server binds (`npm run codec-server`); 0.0.0.0 only inside a container. */
  CODEC_SERVER_HOST: '127.0.0.1',
  /** Port of the codec server; 0 picks a free one. */
  CODEC_SERVER_PORT: '8089',
  /**
   * `token` (default): every request needs `Authorization: Bearer $CODEC_SERVER_TOKEN` (the Web
   * UI forwards the user's token to an HTTPS endpoint). `none`: loopback dev use only (the local
   * stack's dev server UI sends no token).
   */
  CODEC_SERVER_AUTH: 'token',
  /**
   * How the bridge fills the CustomerId search attribute, which Temporal stores unencrypted:
   * `hmac` (default) = `c_` + HMAC-SHA256 of the ID (key ONCEFLOW_SEARCH_HMAC_KEY, else derived
   * from the current encryption key); `plain` = the ID as sent.
   */
  CUSTOMER_ID_SEARCH_ATTRIBUTE: 'hmac',
} as const;

/**
 * DATABASE_SSL: `require` encrypts and verifies the certificate chain (against
 * DATABASE_SSL_CA_PATH or the system CAs) but not the host name; `verify-full` checks both.
 * There is no mode that encrypts without verifying: that protects against nobody.
 */
const sslMode = z.enum(
  ['disable', 'require', 'verify-full'],
  'must be disable, require or verify-full',
);
const saslMechanism = z.enum(
  ['plain', 'scram-sha-256', 'scram-sha-512'],
  'must be plain, scram-sha-256 or scram-sha-512',
);
const logLevel = z.enum(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  'must be a pino level (fatal, error, warn, info, debug, trace, silent)',
);

/** Milliseconds, 0 meaning off (Postgres's own convention for its timeouts). */
const millisOrOff = z.coerce
  .number('must be a number of milliseconds')
  .int('must be a number of milliseconds')
  .min(0, 'must be 0 (off) or a number of milliseconds');

const envSchema = z.object({
  TEMPORAL_ADDRESS: hostPort.default(DEFAULTS.TEMPORAL_ADDRESS),
  TEMPORAL_NAMESPACE: nonEmpty.default(DEFAULTS.TEMPORAL_NAMESPACE),
  TEMPORAL_TASK_QUEUE: nonEmpty.default(DEFAULTS.TEMPORAL_TASK_QUEUE),
  TEMPORAL_UI_URL: url.default(DEFAULTS.TEMPORAL_UI_URL),
  TEMPORAL_TLS: bool.optional(),
  TEMPORAL_TLS_CERT_PATH: nonEmpty.optional(),
  TEMPORAL_TLS_KEY_PATH: nonEmpty.optional(),
  TEMPORAL_TLS_CA_PATH: nonEmpty.optional(),
  TEMPORAL_TLS_SERVER_NAME: nonEmpty.optional(),
  TEMPORAL_API_KEY: nonEmpty.optional(),
  KAFKA_BROKERS: hostPortList.default([DEFAULTS.KAFKA_BROKERS]),
  KAFKA_CLIENT_ID: nonEmpty.default(DEFAULTS.KAFKA_CLIENT_ID),
  KAFKA_TOPICS: nameList.default([DEFAULTS.KAFKA_TOPICS]),
  KAFKA_TOPIC_PARTITIONS: positiveInt.default(Number(DEFAULTS.KAFKA_TOPIC_PARTITIONS)),
  KAFKA_GROUP_ID: nonEmpty.default(DEFAULTS.KAFKA_GROUP_ID),
  KAFKA_SSL: bool.default(false),
  KAFKA_SSL_CA_PATH: nonEmpty.optional(),
  KAFKA_SASL_MECHANISM: saslMechanism.optional(),
  KAFKA_SASL_USERNAME: nonEmpty.optional(),
  KAFKA_SASL_PASSWORD: nonEmpty.optional(),
  DATABASE_URL: postgresUrl.default(DEFAULTS.DATABASE_URL),
  DATABASE_SSL: sslMode.default('disable'),
  DATABASE_SSL_CA_PATH: nonEmpty.optional(),
  DATABASE_SCHEMA: z
    .string()
    .trim()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier')
    .default(DEFAULTS.DATABASE_SCHEMA),
  DATABASE_POOL_MAX: positiveInt.default(Number(DEFAULTS.DATABASE_POOL_MAX)),
  DATABASE_CONNECT_TIMEOUT_MS: positiveInt.default(Number(DEFAULTS.DATABASE_CONNECT_TIMEOUT_MS)),
  DATABASE_STATEMENT_TIMEOUT_MS: millisOrOff.default(
    Number(DEFAULTS.DATABASE_STATEMENT_TIMEOUT_MS),
  ),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: millisOrOff.default(
    Number(DEFAULTS.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS),
  ),
  LOG_LEVEL: logLevel.default(DEFAULTS.LOG_LEVEL),
  WORKER_METRICS_PORT: z.coerce
    .number('must be a port number')
    .int('must be a port number')
    .min(0, 'must be 0..65535')
    .max(65535, 'must be 0..65535')
    .default(Number(DEFAULTS.WORKER_METRICS_PORT)),
  WORKER_METRICS_HOST: nonEmpty.default(DEFAULTS.WORKER_METRICS_HOST),
  BRIDGE_METRICS_HOST: nonEmpty.default(DEFAULTS.BRIDGE_METRICS_HOST),
  WORKER_MAX_CONCURRENT_ACTIVITIES: positiveInt.default(
    Number(DEFAULTS.WORKER_MAX_CONCURRENT_ACTIVITIES),
  ),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: positiveInt.default(
    Number(DEFAULTS.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS),
  ),
  WORKER_MAX_CACHED_WORKFLOWS: positiveInt.default(Number(DEFAULTS.WORKER_MAX_CACHED_WORKFLOWS)),
  BRIDGE_START_CONCURRENCY: positiveInt.default(Number(DEFAULTS.BRIDGE_START_CONCURRENCY)),
  BRIDGE_PARTITIONS_CONCURRENCY: positiveInt.default(
    Number(DEFAULTS.BRIDGE_PARTITIONS_CONCURRENCY),
  ),
  BRIDGE_MAX_MESSAGE_BYTES: positiveInt.default(Number(DEFAULTS.BRIDGE_MAX_MESSAGE_BYTES)),
  BRIDGE_METRICS_PORT: z.coerce
    .number('must be a port number')
    .int('must be a port number')
    .min(0, 'must be 0..65535')
    .max(65535, 'must be 0..65535')
    .default(Number(DEFAULTS.BRIDGE_METRICS_PORT)),
  BRIDGE_SESSION_TIMEOUT_MS: z.coerce
    .number('must be a number of milliseconds')
    .int('must be a number of milliseconds')
    .min(3000, 'must be at least 3000 (ms)')
    .default(Number(DEFAULTS.BRIDGE_SESSION_TIMEOUT_MS)),
  BRIDGE_DLQ_RETENTION_DAYS: positiveInt
    .max(36_500, 'must be at most 36500 (days)')
    .default(Number(DEFAULTS.BRIDGE_DLQ_RETENTION_DAYS)),
  BRIDGE_EXTRA_ROUTES: nonEmpty.optional(),
  LEDGER_RETENTION_DAYS: positiveInt.default(Number(DEFAULTS.LEDGER_RETENTION_DAYS)),
  PROVIDERS_URL: url.default(DEFAULTS.PROVIDERS_URL),
  PROVIDERS_DB_SCHEMA: z
    .string()
    .trim()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier')
    .default(DEFAULTS.PROVIDERS_DB_SCHEMA),
  ORDER_TRANSIENT_RETRY_WINDOW: duration.default(
    parseDurationMs(DEFAULTS.ORDER_TRANSIENT_RETRY_WINDOW)!,
  ),
  /**
   * Bearer token of the sandbox providers' admin API (/admin/*) and mail log (GET /v1/emails).
   * Unset: those routes are refused. The local stack generates one. Secret.
   */
  PROVIDERS_ADMIN_TOKEN: nonEmpty.optional(),
  ONCEFLOW_ENCRYPTION: z
    .enum(['on', 'off'], 'must be on or off')
    .default(DEFAULTS.ONCEFLOW_ENCRYPTION),
  /** `id1:base64key,id2:base64key`: the first key encrypts, all decrypt (rotation). Secret. */
  ONCEFLOW_ENCRYPTION_KEYS: nonEmpty.optional(),
  /** A file with the same lines (one key per line); ignored when ONCEFLOW_ENCRYPTION_KEYS is set. */
  ONCEFLOW_ENCRYPTION_KEY_FILE: nonEmpty.optional(),
  CODEC_SERVER_HOST: nonEmpty.default(DEFAULTS.CODEC_SERVER_HOST),
  CODEC_SERVER_PORT: z.coerce
    .number('must be a port number')
    .int('must be a port number')
    .min(0, 'must be 0..65535')
    .max(65535, 'must be 0..65535')
    .default(Number(DEFAULTS.CODEC_SERVER_PORT)),
  CODEC_SERVER_AUTH: z
    .enum(['token', 'none'], 'must be token or none')
    .default(DEFAULTS.CODEC_SERVER_AUTH),
  /** Secret bearer token of the codec server. */
  CODEC_SERVER_TOKEN: nonEmpty.optional(),
  CUSTOMER_ID_SEARCH_ATTRIBUTE: z
    .enum(['hmac', 'plain'], 'must be hmac or plain')
    .default(DEFAULTS.CUSTOMER_ID_SEARCH_ATTRIBUTE),
  /** Secret (base64, at least 16 bytes): keeps CustomerId HMACs stable across key rotations. */
  ONCEFLOW_SEARCH_HMAC_KEY: z
    .string()
    .trim()
    .refine((s) => Buffer.from(s, 'base64').length >= 16, 'must be base64 of at least 16 bytes')
    .optional(),
  /** The one browser origin allowed by CORS; default: the origin of TEMPORAL_UI_URL. */
  CODEC_SERVER_CORS_ORIGIN: url.optional(),
});

/** Names of every environment variable the config module reads. */
export const CONFIG_KEYS: readonly string[] = Object.keys(envSchema.shape);

export type Env = z.infer<typeof envSchema>;

export interface TemporalTlsConfig {
  certPath?: string;
  keyPath?: string;
  caPath?: string;
  serverName?: string;
}

export interface Config {
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    uiUrl: string;
    /** undefined = plaintext (local dev server). */
    tls?: TemporalTlsConfig;
    apiKey?: string;
  };
  kafka: {
    brokers: string[];
    clientId: string;
    topics: string[];
    partitions: number;
    groupId: string;
    /** undefined = plaintext. */
    ssl?: { caPath?: string };
    sasl?: {
      mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
      username: string;
      password: string;
    };
  };
  database: {
    url: string;
    ssl: 'disable' | 'require' | 'verify-full';
    sslCaPath?: string;
    schema: string;
    poolMax: number;
    /** Connect timeout (ms). */
    connectTimeoutMs: number;
    /** statement_timeout (ms); 0 = off. */
    statementTimeoutMs: number;
    /** idle_in_transaction_session_timeout (ms); 0 = off. */
    idleInTransactionTimeoutMs: number;
  };
  worker: {
    /** Prometheus port of the Temporal runtime's exporter; 0 = off. */
    metricsPort: number;
    /** Interface the metrics endpoint binds (default loopback). */
    metricsHost: string;
    maxConcurrentActivities: number;
    maxConcurrentWorkflowTasks: number;
    /** Sticky cache size (WORKER_MAX_CACHED_WORKFLOWS, default 250). */
    maxCachedWorkflows: number;
  };
  bridge: {
    startConcurrency: number;
    partitionsConcurrency: number;
    maxMessageBytes: number;
    metricsPort: number;
    /** Interface the metrics endpoint binds (default loopback). */
    metricsHost: string;
    /** Consumer-group session timeout (ms); the heartbeat runs at a tenth of it, at most 3 s. */
    sessionTimeoutMs: number;
    /** Days a DLQ topic keeps its messages (retention.ms of `<topic>.dlq`). */
    dlqRetentionDays: number;
    /** JSON of extra routes (see src/kafka-bridge/routes.ts, parseExtraRoutes). */
    extraRoutes?: string;
    ledgerRetentionDays: number;
  };
  providers: {
    /** Base URL of the payment and mail APIs (no trailing slash). */
    url: string;
    /** Schema of the sandbox providers' tables. */
    dbSchema: string;
    /** Secret token of the admin API and mail log; undefined = those routes are closed. */
    adminToken?: string;
  };
  /** `npm run codec-server` (src/codec-server). */
  codecServer: {
    host: string;
    port: number;
    auth: 'token' | 'none';
    token?: string;
    /** Origin (scheme://host:port) the Web UI is served from. */
    corsOrigin: string;
  };
  /** What Temporal stores unencrypted (src/temporal/customer-keyword.ts). */
  searchAttributes: {
    customerId: 'hmac' | 'plain';
    /** HMAC key; undefined = derived from the current encryption key. */
    hmacKey?: Buffer;
  };
  /** Payload encryption (src/temporal/data-converter.ts). */
  encryption: {
    /** True only when ONCEFLOW_ENCRYPTION=off was set explicitly. */
    off: boolean;
    /** The key ring; undefined when no key is configured (see requireEncryptionKey). */
    ring?: KeyRing;
    /** IDs of the ring's keys, current first (safe to log). */
    keyIds: string[];
  };
  orders: {
    /** ORDER_TRANSIENT_RETRY_WINDOW in ms: how long a step retries a transient cause. */
    transientRetryWindowMs: number;
  };
  logLevel: z.infer<typeof logLevel>;
}

/** The DLQ topic of a source topic (ARCHITECTURE.md, "Event contract"). */
export function dlqTopicOf(topic: string): string {
  return `${topic}.dlq`;
}

/**
 * Reads and validates the settings. Throws ConfigError naming every bad setting, so an entry
 * point stops at start instead of failing later on first use.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset: a blank line in an env file must not override a default.
  const present = Object.fromEntries(
    Object.keys(envSchema.shape)
      .filter((k) => env[k] !== undefined && env[k] !== '')
      .map((k) => [k, env[k]]),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => ({ setting: String(i.path[0]), message: i.message })),
    );
  }
  const e = parsed.data;
  const problems = crossCheck(e);
  const encryption = loadKeyRing(e, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...toConfig(e), encryption };
}

function loadKeyRing(
  e: Env,
  problems: Array<{ setting: string; message: string }>,
): Config['encryption'] {
  const off = e.ONCEFLOW_ENCRYPTION === 'off';
  try {
    const ring = e.ONCEFLOW_ENCRYPTION_KEYS
      ? parseKeyRing(e.ONCEFLOW_ENCRYPTION_KEYS, 'ONCEFLOW_ENCRYPTION_KEYS')
      : e.ONCEFLOW_ENCRYPTION_KEY_FILE
        ? readKeyFile(e.ONCEFLOW_ENCRYPTION_KEY_FILE, 'ONCEFLOW_ENCRYPTION_KEY_FILE')
        : undefined;
    return { off, ring: off ? undefined : ring, keyIds: ring ? [...ring.byId.keys()] : [] };
  } catch (err) {
    if (!(err instanceof KeyRingError)) throw err;
    problems.push({ setting: err.setting, message: err.message.slice(err.setting.length + 2) });
    return { off, keyIds: [] };
  }
}

/**
 * Every process that talks to Temporal calls this at start (loadConfigOrExit, and the data
 * converter): without a key it refuses to run, unless encryption was turned off by name.
 */
export function requireEncryptionKey(config: Pick<Config, 'encryption'>): void {
  if (config.encryption.off || config.encryption.ring) return;
  throw new ConfigError([
    {
      setting: 'ONCEFLOW_ENCRYPTION_KEYS',
      message:
        'is required (or ONCEFLOW_ENCRYPTION_KEY_FILE): payloads are encrypted by default; ' +
        'set ONCEFLOW_ENCRYPTION=off to run without encryption',
    },
  ]);
}

function crossCheck(e: Env): Array<{ setting: string; message: string }> {
  const problems: Array<{ setting: string; message: string }> = [];
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
  if (e.DATABASE_SSL_CA_PATH && e.DATABASE_SSL === 'disable') {
    problems.push({
      setting: 'DATABASE_SSL',
      message: 'is disable but DATABASE_SSL_CA_PATH is set',
    });
  }
  return problems;
}

function toConfig(e: Env): Omit<Config, 'encryption'> {
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
      ssl: e.KAFKA_SSL || e.KAFKA_SSL_CA_PATH ? { caPath: e.KAFKA_SSL_CA_PATH } : undefined,
      sasl: e.KAFKA_SASL_MECHANISM
        ? {
            mechanism: e.KAFKA_SASL_MECHANISM,
            username: e.KAFKA_SASL_USERNAME!,
            password: e.KAFKA_SASL_PASSWORD!,
          }
        : undefined,
    },
    database: {
      url: e.DATABASE_URL,
      ssl: e.DATABASE_SSL,
      sslCaPath: e.DATABASE_SSL_CA_PATH,
      schema: e.DATABASE_SCHEMA,
      poolMax: e.DATABASE_POOL_MAX,
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    worker: {
      metricsPort: e.WORKER_METRICS_PORT,
      metricsHost: e.WORKER_METRICS_HOST,
      maxConcurrentActivities: e.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentWorkflowTasks: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxCachedWorkflows: e.WORKER_MAX_CACHED_WORKFLOWS,
    },
    bridge: {
      startConcurrency: e.BRIDGE_START_CONCURRENCY,
      partitionsConcurrency: e.BRIDGE_PARTITIONS_CONCURRENCY,
      maxMessageBytes: e.BRIDGE_MAX_MESSAGE_BYTES,
      metricsPort: e.BRIDGE_METRICS_PORT,
      metricsHost: e.BRIDGE_METRICS_HOST,
      sessionTimeoutMs: e.BRIDGE_SESSION_TIMEOUT_MS,
      dlqRetentionDays: e.BRIDGE_DLQ_RETENTION_DAYS,
      extraRoutes: e.BRIDGE_EXTRA_ROUTES,
      ledgerRetentionDays: e.LEDGER_RETENTION_DAYS,
    },
    providers: {
      url: e.PROVIDERS_URL.replace(/\/+$/, ''),
      dbSchema: e.PROVIDERS_DB_SCHEMA,
      adminToken: e.PROVIDERS_ADMIN_TOKEN,
    },
    searchAttributes: {
      customerId: e.CUSTOMER_ID_SEARCH_ATTRIBUTE,
      hmacKey: e.ONCEFLOW_SEARCH_HMAC_KEY
        ? Buffer.from(e.ONCEFLOW_SEARCH_HMAC_KEY, 'base64')
        : undefined,
    },
    codecServer: {
      host: e.CODEC_SERVER_HOST,
      port: e.CODEC_SERVER_PORT,
      auth: e.CODEC_SERVER_AUTH,
      token: e.CODEC_SERVER_TOKEN,
      corsOrigin: new URL(e.CODEC_SERVER_CORS_ORIGIN ?? e.TEMPORAL_UI_URL).origin,
    },
    orders: { transientRetryWindowMs: e.ORDER_TRANSIENT_RETRY_WINDOW },
    logLevel: e.LOG_LEVEL,
  };
}

/** Query parameters that carry secrets in connection URLs (libpq, JDBC, API styles). */
const SECRET_PARAMS =
  /^(password|passwd|pwd|pass|sslpassword|secret|token|api[-_]?key|access[-_]?token)$/i;

/**
 * A URL safe to print: user info (name and password) and secret query parameters replaced
 * by `***`. Not a URL: replaced whole, since it cannot be taken apart safely.
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '***';
  }
  let changed = false;
  if (url.username) {
    url.username = '***';
    changed = true;
  }
  if (url.password) {
    url.password = '***';
    changed = true;
  }
  for (const key of [...url.searchParams.keys()]) {
    if (!SECRET_PARAMS.test(key)) continue;
    url.searchParams.set(key, '***');
    changed = true;
  }
  // Unchanged URLs are printed as given (URL would add a trailing slash to a bare origin).
  if (!changed) return raw;
  const out = url.toString();
  return url.pathname === '/' && !url.search && !url.hash && !raw.endsWith('/')
    ? out.slice(0, -1)
    : out;
}

/** A copy safe to log: secrets and URL credentials replaced. */
export function redactConfig(config: Config): Config {
  return {
    ...config,
    temporal: {
      ...config.temporal,
      uiUrl: redactUrl(config.temporal.uiUrl),
      apiKey: config.temporal.apiKey ? '***' : undefined,
    },
    kafka: {
      ...config.kafka,
      sasl: config.kafka.sasl ? { ...config.kafka.sasl, password: '***' } : undefined,
    },
    database: { ...config.database, url: redactUrl(config.database.url) },
    encryption: { ...config.encryption, ring: undefined },
    providers: {
      ...config.providers,
      url: redactUrl(config.providers.url),
      adminToken: config.providers.adminToken ? '***' : undefined,
    },
    searchAttributes: {
      ...config.searchAttributes,
      hmacKey: config.searchAttributes.hmacKey ? Buffer.from('***') : undefined,
    },
    codecServer: {
      ...config.codecServer,
      token: config.codecServer.token ? '***' : undefined,
    },
  };
}
