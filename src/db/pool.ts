import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Config } from '../config';

/** A pg pool from config; SSL `require` encrypts, `verify-full` also checks the server. */
export function createPool(database: Config['database']): pg.Pool {
  const ssl =
    database.ssl === 'disable'
      ? undefined
      : {
          rejectUnauthorized: database.ssl === 'verify-full',
          ca: database.sslCaPath ? readFileSync(database.sslCaPath, 'utf8') : undefined,
        };
  return new pg.Pool({ connectionString: database.url, ssl, max: database.poolMax });
}
