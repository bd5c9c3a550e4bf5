import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config';

/**
 * A name no other test (or earlier run against the same services) uses: topics, task
 * queues, consumer groups and schemas are unique per test.
 */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/** Config for the services the test runner started (it exported their addresses). */
export function testConfig(): Config {
  return loadConfig(process.env);
}
