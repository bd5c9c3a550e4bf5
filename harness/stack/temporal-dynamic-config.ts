/**
 * `ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG`: dynamic config the stack's Temporal gets on top of its
 * own (either kind: the dev server's `--dynamic-config-value`, the server's dynamic config
 * file), as comma-separated `key=JSON value` pairs. A setting of the stack, like the topology's,
 * for measuring a server setting on and off:
 *
 *   ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG=system.enableActivityEagerExecution=false npm run bench -- --only drain
 */
import { StackSettingError } from './topology';

export const DYNAMIC_CONFIG_SETTING = 'ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG';

/**
 * Task queue fairness, which a self-hosted server leaves off (docs/production.md, "Fairness"):
 * tenants' fairness keys and TENANT_WEIGHTS are honoured, and per-tenant provider limits held.
 * Priority keys (live before replays and backfills) and queue rate limits need nothing: the
 * server's matcher honours them by default. Both kinds of stack Temporal get it;
 * ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG=matching.enableFairness=false turns it off (the fairness bench does).
 */
export const FAIRNESS_DYNAMIC_CONFIG: Readonly<Record<string, DynamicConfigValue>> = {
  'matching.enableFairness': true,
  // Fairness and priority order a queue's tasks within each of its partitions, and a task
  // lands on a random one (four by default): with one, a tenant's share and a live event's
  // place are exact, as Temporal's own fairness tests run them. One process serves the
  // stack's queues, so more partitions would buy it nothing (docs/production.md, "Fairness").
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

/** A dynamic config value: what JSON gives (strings need quotes, as for the CLI). */
export type DynamicConfigValue = string | number | boolean;

/** The pairs the environment asks for (empty when unset); a bad pair names the setting. */
export function readExtraDynamicConfig(
  env: NodeJS.ProcessEnv = process.env,
): Record<string, DynamicConfigValue> {
  const raw = env[DYNAMIC_CONFIG_SETTING]?.trim();
  const out: Record<string, DynamicConfigValue> = {};
  if (!raw) return out;
  for (const pair of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf('=');
    const key = pair.slice(0, eq).trim();
    if (eq <= 0 || !/^[A-Za-z][\w.]*$/.test(key))
      throw new StackSettingError(DYNAMIC_CONFIG_SETTING, `"${pair}" is not key=value`);
    let value: unknown;
    try {
      value = JSON.parse(pair.slice(eq + 1));
    } catch {
      value = undefined;
    }
    if (!['string', 'number', 'boolean'].includes(typeof value))
      throw new StackSettingError(
        DYNAMIC_CONFIG_SETTING,
        `${key}: the value must be JSON (true, 10, "text"), got ${pair.slice(eq + 1)}`,
      );
    out[key] = value as DynamicConfigValue;
  }
  return out;
}

/** `a=1 b=false`, for the bench's stack line; empty when none is set. */
export function describeExtraDynamicConfig(env: NodeJS.ProcessEnv = process.env): string {
  return Object.entries(readExtraDynamicConfig(env))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');
}
