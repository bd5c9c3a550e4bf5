import pino, { type Logger } from 'pino';
import { traceLogFields } from './tracing/active';

export type { Logger } from 'pino';

/**
 * Structured JSON logs. The redact paths are a second line of defence: secrets are kept out
 * of log calls in the first place (see redactConfig).
 */
export function createLogger(name: string, level = 'info'): Logger {
  return pino({
    name,
    level,
    // trace_id and span_id of the active span, so a line finds its order's trace (tracing on).
    mixin: traceLogFields,
    redact: {
      paths: ['*.password', '*.apiKey', '*.sasl.password', 'password', 'apiKey'],
      censor: '***',
    },
  });
}
