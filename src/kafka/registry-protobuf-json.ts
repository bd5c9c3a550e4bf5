import type { Message, Root, Type } from 'protobufjs';

/**
 * A decoded Protobuf message as Protobuf's JSON mapping: camelCase field names, enums by name,
 * 64-bit integers as decimal text, bytes base64, every field present (zero values too, so two
 * encodings of one message fingerprint alike), and Google's well-known types as the mapping
 * writes them: a Timestamp as RFC 3339 text, a Duration as `"1.5s"`, a wrapper as its value, a
 * Struct as the JSON object, a FieldMask as `"a.b,c"`, an Any as `{"@type": …, …}`.
 */

type Protobufjs = typeof import('protobufjs');
type Json = Record<string, unknown>;

const TO_OBJECT = {
  longs: String,
  enums: String,
  bytes: String,
  defaults: true,
  arrays: true,
  objects: true,
} as const;

/** RFC 3339's range (0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z), as the mapping bounds it. */
const TIMESTAMP_MIN_SECONDS = -62_135_596_800n;
const TIMESTAMP_MAX_SECONDS = 253_402_300_799n;
/** A Duration's range: ±10,000 years. */
const DURATION_MAX_SECONDS = 315_576_000_000n;
const MAX_NANOS = 999_999_999;

/** Nanoseconds as the mapping writes them: none, or 3, 6 or 9 digits. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`;
  if (nanos % 1000 === 0) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

/** The seconds and nanos of a Timestamp or Duration, or undefined when they are not numbers. */
function secondsAndNanos(obj: Json): [bigint, number] | undefined {
  const { seconds, nanos } = obj;
  if ((typeof seconds !== 'string' && typeof seconds !== 'number') || typeof nanos !== 'number')
    return undefined;
  try {
    return [BigInt(seconds), nanos];
  } catch {
    return undefined;
  }
}

// A value outside the mapping's range stays the message it is, so nothing is lost.
function timestampJson(obj: Json): unknown {
  const parts = secondsAndNanos(obj);
  if (!parts) return obj;
  const [seconds, nanos] = parts;
  if (seconds < TIMESTAMP_MIN_SECONDS || seconds > TIMESTAMP_MAX_SECONDS) return obj;
  if (!Number.isInteger(nanos) || nanos < 0 || nanos > MAX_NANOS) return obj;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}${fraction(nanos)}Z`;
}

function durationJson(obj: Json): unknown {
  const parts = secondsAndNanos(obj);
  if (!parts) return obj;
  const [seconds, nanos] = parts;
  const abs = seconds < 0n ? -seconds : seconds;
  if (abs > DURATION_MAX_SECONDS || !Number.isInteger(nanos) || Math.abs(nanos) > MAX_NANOS)
    return obj;
  if ((seconds < 0n && nanos > 0) || (seconds > 0n && nanos < 0)) return obj;
  const negative = seconds < 0n || nanos < 0;
  return `${negative ? '-' : ''}${abs}${fraction(Math.abs(nanos))}s`;
}

function structJson(obj: Json): unknown {
  const fields = (obj.fields ?? {}) as Record<string, Json>;
  const out: Json = {};
  for (const [key, value] of Object.entries(fields)) out[key] = valueJson(value);
  return out;
}

function listJson(obj: Json): unknown {
  return ((obj.values ?? []) as Json[]).map(valueJson);
}

/** A Value: its one kind that is set (toObject leaves the others out); none set is null. */
function valueJson(obj: Json): unknown {
  if ('structValue' in obj) return structJson(obj.structValue as Json);
  if ('listValue' in obj) return listJson(obj.listValue as Json);
  for (const kind of ['numberValue', 'stringValue', 'boolValue']) if (kind in obj) return obj[kind];
  return null;
}

const lowerCamel = (path: string) => path.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

const WRAPPERS = [
  'Double',
  'Float',
  'Int64',
  'UInt64',
  'Int32',
  'UInt32',
  'Bool',
  'String',
  'Bytes',
];

const WELL_KNOWN = new Map<string, (obj: Json) => unknown>([
  ['.google.protobuf.Timestamp', timestampJson],
  ['.google.protobuf.Duration', durationJson],
  ['.google.protobuf.Struct', structJson],
  ['.google.protobuf.Value', valueJson],
  ['.google.protobuf.ListValue', listJson],
  ['.google.protobuf.Empty', () => ({})],
  [
    '.google.protobuf.FieldMask',
    (obj) => ((obj.paths ?? []) as string[]).map((p) => lowerCamel(p)).join(','),
  ],
  ...WRAPPERS.map((w) => [`.google.protobuf.${w}Value`, (obj: Json) => obj.value] as const),
]);

const ANY = '.google.protobuf.Any';

/**
 * The JSON of messages of `root` (the schema's types, those it references and the well-known
 * ones): `toJson(type, message)`.
 */
export function protoJsonMapper(
  lib: Protobufjs,
  root: Root,
): (type: Type, message: Message) => unknown {
  const isType = (t: unknown): t is Type => t instanceof lib.Type;

  /** An Any: the message it packs, when its type is among the schema's, else its bytes. */
  const anyJson = (obj: Json): unknown => {
    const url = (obj.typeUrl ?? obj.type_url ?? '') as string;
    const bytes = Buffer.from((obj.value ?? '') as string, 'base64');
    const packed = url ? root.lookup(url.slice(url.lastIndexOf('/') + 1)) : null;
    if (!isType(packed)) return { '@type': url, value: bytes.toString('base64') };
    const json = toJson(packed, packed.decode(bytes));
    return WELL_KNOWN.has(packed.fullName) || packed.fullName === ANY
      ? { '@type': url, value: json }
      : { '@type': url, ...(json as Json) };
  };

  const mapMessage = (type: Type, obj: Json): unknown => {
    if (type.fullName === ANY) return anyJson(obj);
    const wellKnown = WELL_KNOWN.get(type.fullName);
    if (wellKnown) return wellKnown(obj);
    for (const field of type.fieldsArray) {
      const fieldType = field.resolvedType;
      const value = obj[field.name];
      if (!isType(fieldType) || value === null || value === undefined) continue;
      if (field.map) {
        const entries = value as Record<string, Json>;
        for (const key of Object.keys(entries))
          entries[key] = mapMessage(fieldType, entries[key]!) as Json;
      } else if (Array.isArray(value)) {
        obj[field.name] = value.map((v: Json) => mapMessage(fieldType, v));
      } else {
        obj[field.name] = mapMessage(fieldType, value as Json);
      }
    }
    return obj;
  };

  const toJson = (type: Type, message: Message): unknown =>
    mapMessage(type, type.toObject(message, TO_OBJECT) as Json);
  return toJson;
}
