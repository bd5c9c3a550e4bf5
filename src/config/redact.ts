import type { Config } from './load';

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
    schemaRegistry: config.schemaRegistry && {
      ...config.schemaRegistry,
      url: redactUrl(config.schemaRegistry.url),
      ...(config.schemaRegistry.auth
        ? {
            auth:
              'bearerToken' in config.schemaRegistry.auth
                ? { bearerToken: '***' }
                : { ...config.schemaRegistry.auth, password: '***' },
          }
        : {}),
    },
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
