import type { Schema, Type } from 'avsc';

/**
 * Avro's `long` as a bigint, so every 64-bit value decodes (avsc's own long type throws
 * "potential precision loss" beyond 2^53, which dead-lettered 64-bit IDs and nanosecond
 * timestamps); toJsonValue (registry-json.ts) then gives a number, or its decimal text beyond
 * 2^53. The hook goes into the options the registry library hands avsc for every schema.
 */

type Avsc = typeof import('avsc');

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
 * avsc options (`typeHook`) that read every `long` as a bigint. Pass them, with anything else,
 * as the Avro deserializer's configuration.
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
  const typeHook = (schema: Schema, opts: object): Type | undefined => {
    if (isLong(schema)) return longType;
    if (!Array.isArray(schema)) return undefined;
    const branches = schema.map((branch) => avsc.Type.forSchema(branch, opts));
    const buckets = branches.filter((b) => !avsc.Type.isType(b, 'logical')).map(bucketOf);
    const ambiguous = new Set(buckets).size < buckets.length;
    const Union = ambiguous ? avsc.types.WrappedUnionType : avsc.types.UnwrappedUnionType;
    return new Union(branches as unknown as Schema, opts) as unknown as Type;
  };
  return { typeHook };
}
