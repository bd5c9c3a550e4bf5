import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Structured JSON logs. The redact paths are a second line of defence: secrets are kept out
 * of log calls in the first place (see redactConfig).
 */
export function createLogger(name: string, level = 'info'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['*.password', '*.apiKey', '*.sasl.password', 'password', 'apiKey'],
      censor: '***',
    },
  });
}
