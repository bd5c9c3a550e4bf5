/**
 * `@dbos-inc/postgres-datasource` 4.24.16, the newest published, was built against the 4.x
 * SDK: it imports three SQL helpers from `@dbos-inc/dbos-sdk/datasource` that 5.3.0 no longer
 * exports (5.x versions its datasource schema with `getDataSourceMigrationsPG` instead), so
 * its start fails with "checkSchemaInstallationPG is not a function". Everything else it
 * calls (registerDataSource, runTransaction, registerTransaction, the error tests) 5.3.0
 * still exports. This puts the three back, the table statement taken from 5.3.0's own first
 * migration, so the published datasource runs on the pinned SDK unchanged.
 */
import { createRequire } from 'node:module';

interface SdkDatasourceModule {
  getDataSourceMigrationsPG(schemaName?: string): string[];
  [helper: string]: unknown;
}

const quoteLiteral = (v: string) => `'${v.replace(/'/g, "''")}'`;
const quoteIdent = (v: string) => `"${v.replace(/"/g, '""')}"`;

/** Adds the helpers the 4.x datasources import, where 5.3.0 lacks them. Idempotent. */
export function addLegacyDatasourceHelpers(): void {
  // The module object itself (require's cache), which the datasource reads at each call; an
  // ESM namespace import would be a copy.
  const sdk = createRequire(__filename)('@dbos-inc/dbos-sdk/datasource') as SdkDatasourceModule;
  const helpers: Record<string, (schemaName: string) => string> = {
    checkSchemaInstallationPG: (s) =>
      `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ${quoteLiteral(s)})
          AS schema_exists,
        EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = ${quoteLiteral(s)}
          AND tablename = 'transaction_completion') AS table_exists`,
    createTransactionCompletionSchemaPG: (s) => `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(s)}`,
    createTransactionCompletionTablePG: (s) => sdk.getDataSourceMigrationsPG(s)[0]!,
  };
  for (const [name, fn] of Object.entries(helpers)) {
    if (typeof sdk[name] !== 'function') sdk[name] = fn;
  }
}
