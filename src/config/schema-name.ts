import { escapeIdentifier } from 'pg';

/**
 * The one rule for onceflow's Postgres schema names (DATABASE_SCHEMA, PROVIDERS_DB_SCHEMA,
 * the per-test schemas): lower-case SQL identifiers. Identifiers cannot be `$n` parameters, so
 * every schema that reaches SQL text passes through here.
 */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/** Why a schema name was refused; config reports the same text next to the setting's name. */
export const SCHEMA_NAME_RULE = 'must be a lower-case SQL identifier';

/** Thrown for a schema name that breaks SCHEMA_NAME; names the value. */
export class InvalidSchemaNameError extends Error {
  override readonly name = 'InvalidSchemaNameError';
  constructor(readonly schema: string) {
    super(`invalid schema name: ${schema}`);
  }
}

/** The schema name, checked; throws InvalidSchemaNameError otherwise. */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new InvalidSchemaNameError(schema);
  return schema;
}

/** The schema as a quoted SQL identifier (`"sandbox"`), checked first. */
export function quoteSchema(schema: string): string {
  return escapeIdentifier(checkSchemaName(schema));
}

/** `"schema".table`: a table name qualified by a checked, quoted schema. */
export function qualifyTable(schema: string, table: string): string {
  return `${quoteSchema(schema)}.${table}`;
}
