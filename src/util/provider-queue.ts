// Where a step's activity goes: a step that declares the provider it calls (`provider: 'mail'`)
// runs on that provider's own activity task queue, `<task queue>@<provider>`, which every
// worker polls (activities only) and whose rate Temporal holds across all of them
// (PROVIDER_RATE_LIMITS, set at worker start: src/worker/task-queue-config.ts). Pure: workflow
// code, the worker and the config share it.

/** A provider's name: lower-case letters, digits and `-`, at most 40. */
export const PROVIDER_NAME = /^[a-z][a-z0-9-]{0,39}$/;

export const PROVIDER_NAME_RULE = 'must be lower-case letters, digits and - (at most 40)';

/** The activity task queue of `provider`'s calls, beside the workflow's `taskQueue`. */
export function providerTaskQueue(taskQueue: string, provider: string): string {
  return `${taskQueue}@${provider}`;
}
