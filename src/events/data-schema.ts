import type { z } from 'zod';

/**
 * How a route validates and normalises an event's `data`: any validator. A zod schema works as
 * it is (its own error lines, `data.items[0].quantity: is required`); so does any schema that
 * implements Standard Schema v1 (valibot, ArkType, Effect Schema…), or a plain function that
 * returns the decoded value and throws on bad input. Validation is synchronous: the bridge
 * translates a message without I/O.
 */
export type DataSchema<T = unknown> = StandardSchemaV1<unknown, T> | ((data: unknown) => T);

/** The part of the Standard Schema v1 interface (standardschema.dev) the bridge calls. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** A Standard Schema validation result. */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/** The validated data, or one line per problem. */
export type Validation<T> = { ok: true; value: T } | { ok: false; error: string };

function formatPath(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string {
  let out = 'data';
  for (const part of path) {
    const p = typeof part === 'object' && part !== null ? part.key : part;
    out += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  }
  return out;
}

function valueAt(data: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v = data;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/**
 * One line per problem, `data.items[0].quantity: must be positive`, so an operator reading
 * `dlq-error` sees every field to fix at once. zod's "expected string, received undefined"
 * becomes "is required".
 */
export function formatValidationError(error: z.ZodError, data: unknown): string {
  return error.issues
    .map((issue) => {
      const missing =
        issue.code === 'invalid_type' &&
        issue.path.length > 0 &&
        valueAt(data, issue.path) === undefined;
      return `${formatPath(issue.path)}: ${missing ? 'is required' : issue.message}`;
    })
    .join('; ');
}

interface ZodLike<T> {
  safeParse(data: unknown): { success: true; data: T } | { success: false; error: z.ZodError };
}

function isZodLike<T>(schema: unknown): schema is ZodLike<T> {
  return typeof (schema as { safeParse?: unknown }).safeParse === 'function';
}

/** Validates `data` with any DataSchema. Never throws for bad data; a throwing decoder's message is the error. */
export function validateData<T>(schema: DataSchema<T>, data: unknown): Validation<T> {
  if (isZodLike<T>(schema)) {
    const r = schema.safeParse(data);
    return r.success
      ? { ok: true, value: r.data }
      : { ok: false, error: formatValidationError(r.error, data) };
  }
  if (typeof schema === 'function') {
    try {
      return { ok: true, value: schema(data) };
    } catch (err) {
      return { ok: false, error: `data: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  const result = schema['~standard'].validate(data);
  if (result instanceof Promise) {
    // Never awaited: the translation stays synchronous and total.
    result.catch(() => undefined);
    return {
      ok: false,
      error: 'data: the route validates asynchronously, which the bridge does not support',
    };
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  return {
    ok: false,
    error: result.issues.map((i) => `${formatPath(i.path ?? [])}: ${i.message}`).join('; '),
  };
}
