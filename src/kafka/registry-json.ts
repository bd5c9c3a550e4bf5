/**
 * A decoded Avro or JSON Schema value as plain JSON, the form a route validates and the
 * payload fingerprint is computed from (src/events/identity.ts, canonicalJson): bytes become
 * base64, a long beyond 2^53 its decimal text (a rounded number would merge two payloads),
 * a Date its ISO text, a Map an object; records (class instances in avsc) plain objects.
 * Protobuf messages take protobuf's own JSON mapping instead (registry-decoder.ts).
 */
export function toJsonValue(value: unknown): unknown {
  if (value === null || value === undefined) return value ?? null;
  switch (typeof value) {
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    case 'object':
      break;
    default:
      return value;
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toJsonValue);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  const out: Record<string, unknown> = {};
  for (const [key, field] of entries) {
    if (field !== undefined) out[String(key)] = toJsonValue(field);
  }
  return out;
}
