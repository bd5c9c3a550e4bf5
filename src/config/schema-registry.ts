import type { Env, SettingProblem } from './env';

/** How the bridge reaches its Schema Registry (the SCHEMA_REGISTRY_* settings). */
export interface SchemaRegistryConfig {
  /** Base URL of the Confluent-compatible API, no trailing slash. */
  url: string;
  /** Basic auth or a bearer token; undefined: none. */
  auth?: { username: string; password: string } | { bearerToken: string };
  /** TLS material (an https:// URL); undefined paths: the system CAs, no client certificate. */
  tls: { caPath?: string; certPath?: string; keyPath?: string };
  timeoutMs: number;
}

/** The registry settings, or undefined when SCHEMA_REGISTRY_URL is unset. */
export function schemaRegistryOf(e: Env): SchemaRegistryConfig | undefined {
  if (!e.SCHEMA_REGISTRY_URL) return undefined;
  const auth = e.SCHEMA_REGISTRY_BEARER_TOKEN
    ? { bearerToken: e.SCHEMA_REGISTRY_BEARER_TOKEN }
    : e.SCHEMA_REGISTRY_USERNAME
      ? { username: e.SCHEMA_REGISTRY_USERNAME, password: e.SCHEMA_REGISTRY_PASSWORD! }
      : undefined;
  return {
    url: e.SCHEMA_REGISTRY_URL.replace(/\/+$/, ''),
    ...(auth ? { auth } : {}),
    tls: {
      caPath: e.SCHEMA_REGISTRY_CA_PATH,
      certPath: e.SCHEMA_REGISTRY_TLS_CERT_PATH,
      keyPath: e.SCHEMA_REGISTRY_TLS_KEY_PATH,
    },
    timeoutMs: e.SCHEMA_REGISTRY_TIMEOUT_MS,
  };
}

/** What is wrong with the registry settings taken together (each one is parsed already). */
export function schemaRegistryProblems(e: Env): SettingProblem[] {
  const problems: SettingProblem[] = [];
  const others = [
    'SCHEMA_REGISTRY_USERNAME',
    'SCHEMA_REGISTRY_PASSWORD',
    'SCHEMA_REGISTRY_BEARER_TOKEN',
    'SCHEMA_REGISTRY_CA_PATH',
    'SCHEMA_REGISTRY_TLS_CERT_PATH',
    'SCHEMA_REGISTRY_TLS_KEY_PATH',
  ] as const;
  if (!e.SCHEMA_REGISTRY_URL) {
    for (const name of others.filter((n) => e[n]))
      problems.push({ setting: name, message: 'is set but SCHEMA_REGISTRY_URL is not' });
    return problems;
  }
  const url = new URL(e.SCHEMA_REGISTRY_URL);
  // A URL is logged and named in alerts; credentials go in their own (secret) settings.
  if (url.username || url.password)
    problems.push({
      setting: 'SCHEMA_REGISTRY_URL',
      message:
        'must not carry credentials: use SCHEMA_REGISTRY_USERNAME and SCHEMA_REGISTRY_PASSWORD',
    });
  if (Boolean(e.SCHEMA_REGISTRY_USERNAME) !== Boolean(e.SCHEMA_REGISTRY_PASSWORD)) {
    const missing = e.SCHEMA_REGISTRY_USERNAME
      ? 'SCHEMA_REGISTRY_PASSWORD'
      : 'SCHEMA_REGISTRY_USERNAME';
    problems.push({ setting: missing, message: 'basic auth needs a user name and a password' });
  }
  if (e.SCHEMA_REGISTRY_BEARER_TOKEN && e.SCHEMA_REGISTRY_USERNAME)
    problems.push({
      setting: 'SCHEMA_REGISTRY_BEARER_TOKEN',
      message: 'is set with SCHEMA_REGISTRY_USERNAME: choose basic auth or a bearer token',
    });
  if (Boolean(e.SCHEMA_REGISTRY_TLS_CERT_PATH) !== Boolean(e.SCHEMA_REGISTRY_TLS_KEY_PATH)) {
    const missing = e.SCHEMA_REGISTRY_TLS_CERT_PATH
      ? 'SCHEMA_REGISTRY_TLS_KEY_PATH'
      : 'SCHEMA_REGISTRY_TLS_CERT_PATH';
    problems.push({ setting: missing, message: 'client certificate and key are set together' });
  }
  const tlsMaterial = e.SCHEMA_REGISTRY_CA_PATH || e.SCHEMA_REGISTRY_TLS_CERT_PATH;
  if (tlsMaterial && url.protocol !== 'https:')
    problems.push({
      setting: 'SCHEMA_REGISTRY_URL',
      message: 'is http:// but TLS settings are set: use https://',
    });
  return problems;
}
