import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

// Read-only probe: a short timeout and a small retry budget, so a broken deploy is reported
// in seconds instead of retrying forever.
const { checkDatabase } = proxyActivities<Pick<Activities, 'checkDatabase'>>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, initialInterval: '200 ms' },
});

export interface SmokeCheckInput {
  schema?: string;
}

export interface SmokeCheckResult {
  postgresVersion: string;
  migrationVersion: number;
}

/** Proves the path client → Temporal → worker → activity → Postgres end to end. */
export async function smokeCheck(input: SmokeCheckInput = {}): Promise<SmokeCheckResult> {
  const db = await checkDatabase({ schema: input.schema });
  return { postgresVersion: db.serverVersion, migrationVersion: db.migrationVersion };
}
