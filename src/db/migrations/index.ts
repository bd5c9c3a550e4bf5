import { createLedger } from './0001-create-ledger';
import type { Migration } from './types';

export type { Migration } from './types';

/** Every migration, in version order. Append only: an applied migration is never edited. */
export const migrations: readonly Migration[] = [createLedger];
