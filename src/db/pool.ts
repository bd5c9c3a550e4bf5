import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Config } from '../config';

/** Options for createPool. */
export interface CreatePoolOptions {
  /**
   * Schema put first on every connection's search_path, so stores use unqualified table
   * names and tests (one schema each) share code with production. Default: the server's
   * search_path (public).
   */
  schema?: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

/** A pg pool from config; SSL `require` encrypts, `verify-full` also checks the server. */
export function createPool(database: Config['database'], options: CreatePoolOptions = {}): pg.Pool {
  const ssl =
    database.ssl === 'disable'
      ? undefined
      : {
          rejectUnauthorized: database.ssl === 'verify-full',
          ca: database.sslCaPath ? readFileSync(database.sslCaPath, 'utf8') : undefined,
        };
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`invalid schema name: ${options.schema}`);
  }
  return new pg.Pool({
    connectionString: database.url,
    ssl,
    max: database.poolMax,
    options: options.schema ? `-c search_path=${options.schema}` : undefined,
  });
}
