import { parseDuration } from '../util/duration';
import { parseArgsOrUsage, UsageError } from '../util/usage-error';
import { DEFAULT_STUCK_AFTER_MS } from './classify';

export const RECONCILE_USAGE = `usage: npm run reconcile -- [--topic T] [--prefix ORDER_ID_PREFIX] [--stuck-after 10m] [--json]
                            [--schema NAME] [--providers-url URL]
  --topic T           source topic to read back (repeatable; default: KAFKA_TOPICS); its DLQ is T.dlq
  --prefix P          only orders whose ID starts with P (default: all)
  --stuck-after D     a workflow running longer than D is stuck: 90s, 10m, 2h, 1d (default: 10m)
  --json              one JSON document instead of the table
  --schema NAME       schema of the ledger and inventory (default: DATABASE_SCHEMA)
  --providers-url U   providers' base URL for the admin ledger (default: PROVIDERS_URL)
exit codes: 0 clean, 1 discrepancies found, 2 usage, 3 a source could not be read, 78 configuration
`;

export interface ReconcileArgs {
  /** Empty: the configured topics. */
  topics: string[];
  prefix: string;
  stuckAfterMs: number;
  json: boolean;
  schema?: string;
  providersUrl?: string;
}

// A visibility query cannot escape quotes, and a backslash would change what STARTS_WITH means.
const UNSAFE_PREFIX = /['"\\]/;

/** Reads reconcile's command line; throws UsageError for anything malformed. */
export function parseReconcileArgs(argv: string[]): ReconcileArgs {
  const { values } = parseArgsOrUsage({
    args: argv,
    options: {
      topic: { type: 'string', multiple: true },
      prefix: { type: 'string' },
      'stuck-after': { type: 'string' },
      json: { type: 'boolean' },
      schema: { type: 'string' },
      'providers-url': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const prefix = values.prefix ?? '';
  if (UNSAFE_PREFIX.test(prefix)) throw new UsageError('--prefix may not contain quotes or \\');
  const topics = values.topic ?? [];
  if (topics.some((t) => t.trim() === '')) throw new UsageError('--topic may not be empty');
  const stuck = values['stuck-after'];
  return {
    topics,
    prefix,
    stuckAfterMs:
      stuck === undefined ? DEFAULT_STUCK_AFTER_MS : parseDuration(stuck, '--stuck-after'),
    json: values.json ?? false,
    ...(values.schema !== undefined ? { schema: values.schema } : {}),
    ...(values['providers-url'] !== undefined
      ? { providersUrl: values['providers-url'].replace(/\/+$/, '') }
      : {}),
  };
}
