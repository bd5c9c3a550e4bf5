import type { Schema, Type } from 'avsc';

/**
 * How avsc reads registry values, through a type hook in the options the registry library hands
 * avsc for every schema:
 * - Avro's `long` as a bigint, so every 64-bit value decodes (avsc's own long type throws
 *   "potential precision loss" beyond 2^53, which dead-lettered 64-bit IDs and nanosecond
 *   timestamps); toJsonValue (registry-json.ts) then gives a number, or its decimal text
 *   beyond 2^53;
 * - arrays and maps that may not declare more items than their value's bytes can hold: avsc
 *   trusts a block's count, so ten hostile bytes declaring a billion items had it allocate
 *   until the process ran out of memory.
 */

type Avsc = typeof import('avsc');

/**
 * Array and map items one value may declare beyond one per byte of it. Every item takes at
 * least a byte, except items that take none (null, an empty record), which Avro allows in any
 * number; no event carries this many of them.
 */
export const MAX_AVRO_ITEMS_BEYOND_BYTES = 65_536;

/** avsc's read cursor (its Tap), as far as the readers below use it. */
interface Tap {
  buf: Buffer;
  pos: number;
  readLong(): number;
  skipLong(): void;
  readString(): string;
}

/** Items the value being decoded may still declare (decodeAvro sets it; reads are synchronous). */
let itemBudget = Infinity;

/** A block's item count, as avsc reads it (a negative count is followed by the block's size). */
function blockCount(tap: Tap): number {
  let n = tap.readLong();
  if (n < 0) {
    n = -n;
    tap.skipLong();
  }
  itemBudget -= n;
  if (itemBudget < 0)
    throw new RangeError(
      `an array or map declares more items than the value's ${tap.buf.length} bytes can hold`,
    );
  return n;
}

/** `Base` (avsc's ArrayType or MapType) with `read` as its reader. */
function withReader(Base: object, read: (this: Record<string, Type>, tap: Tap) => unknown) {
  function Checked(this: object, schema: unknown, opts: unknown) {
    (Base as (this: object, ...args: unknown[]) => void).call(this, schema, opts);
  }
  Checked.prototype = Object.create((Base as { prototype: object }).prototype, {
    constructor: { value: Checked },
    _read: { value: read },
  }) as object;
  return Checked as unknown as new (schema: Schema, opts: object) => Type;
}

/** The reader of `type` (avsc's internal one, which the checked readers call for items). */
const readerOf = (type: Type) => (type as unknown as { _read(tap: Tap): unknown })._read;

/** Decodes `payload` with `type` (compiled with bigintLongOptions), its items bounded. */
export function decodeAvro(type: Type, payload: Buffer): unknown {
  itemBudget = payload.length + MAX_AVRO_ITEMS_BEYOND_BYTES;
  try {
    return type.fromBuffer(payload);
  } finally {
    itemBudget = Infinity;
  }
}

/** The avsc the registry library compiles schemas with: its types must be its own instances. */
function avscOfLibrary(): Avsc {
  const library = require.resolve('@confluentinc/schemaregistry/dist/serde/avro');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the registry client
  return require(require.resolve('avsc', { paths: [library] })) as Avsc;
}

/** Whether `schema` declares a long (`"long"` or `{"type": "long", …}`). */
function isLong(schema: Schema): boolean {
  return (
    schema === 'long' ||
    (typeof schema === 'object' &&
      schema !== null &&
      !Array.isArray(schema) &&
      (schema as { type?: unknown }).type === 'long')
  );
}

/**
 * avsc's bucket of a union branch (its `getTypeBucket`), counting the bigint long as the
 * number it stands for. avsc wraps a union (`{"long": 5}`) when two branches share a bucket;
 * its own long shares `number` with int, float and double, a custom long would not. Unions are
 * built here with the stock rule, so a union of two number types decodes as it always did (the
 * same JSON, so the same payload fingerprint).
 */
function bucketOf(type: Type): string {
  switch (type.typeName) {
    case 'double':
    case 'float':
    case 'int':
    case 'long':
    case 'abstract:long':
      return 'number';
    case 'bytes':
    case 'fixed':
      return 'buffer';
    case 'enum':
      return 'string';
    case 'map':
    case 'error':
    case 'record':
      return 'object';
    default:
      return type.typeName;
  }
}

/**
 * avsc options (`typeHook`) that read every `long` as a bigint and check array and map counts
 * (for values decoded with decodeAvro). Pass them, with anything else, as the Avro
 * deserializer's configuration.
 */
export function bigintLongOptions(): {
  typeHook: (schema: Schema, opts: object) => Type | undefined;
} {
  const avsc = avscOfLibrary();
  const longType = avsc.types.LongType.__with({
    fromBuffer: (buf: Buffer) => buf.readBigInt64LE(0),
    toBuffer: (n: bigint) => {
      const buf = Buffer.alloc(8);
      buf.writeBigInt64LE(n);
      return buf;
    },
    fromJSON: (json: unknown) => BigInt(json as string | number),
    toJSON: (n: bigint) => (Number.isSafeInteger(Number(n)) ? Number(n) : n.toString()),
    isValid: (n: unknown) => typeof n === 'bigint',
    compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
  }) as Type;
  const CheckedArray = withReader(avsc.types.ArrayType, function (tap) {
    const items = this.itemsType!;
    const out: unknown[] = [];
    for (let n = blockCount(tap); n > 0; n = blockCount(tap))
      while (n--) out.push(readerOf(items).call(items, tap));
    return out;
  });
  const CheckedMap = withReader(avsc.types.MapType, function (tap) {
    const values = this.valuesType!;
    const out: Record<string, unknown> = {};
    for (let n = blockCount(tap); n > 0; n = blockCount(tap))
      while (n--) out[tap.readString()] = readerOf(values).call(values, tap);
    return out;
  });
  const typeHook = (schema: Schema, opts: object): Type | undefined => {
    if (isLong(schema)) return longType;
    const declared = typeof schema === 'object' ? (schema as { type?: unknown }).type : undefined;
    if (declared === 'array') return new CheckedArray(schema, opts);
    if (declared === 'map') return new CheckedMap(schema, opts);
    if (!Array.isArray(schema)) return undefined;
    const branches = schema.map((branch) => avsc.Type.forSchema(branch, opts));
    const buckets = branches.filter((b) => !avsc.Type.isType(b, 'logical')).map(bucketOf);
    const ambiguous = new Set(buckets).size < buckets.length;
    const Union = ambiguous ? avsc.types.WrappedUnionType : avsc.types.UnwrappedUnionType;
    return new Union(branches as unknown as Schema, opts) as unknown as Type;
  };
  return { typeHook };
}
