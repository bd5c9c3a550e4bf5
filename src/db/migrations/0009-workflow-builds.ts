import type { Migration } from './types';

/**
 * The workflow code of every build a worker ran (docs/deploying.md): a run is pinned to the
 * build it started on, and finishes on it. When a deploy stops the last worker of a build
 * while its runs are in flight, the next worker reads that build's bundle back from here and
 * serves its runs until they close. Keyed by the build ID (the bundle's content hash), so the
 * same code is stored once whatever deployment runs it; gzipped (a bundle is a few MB of
 * JavaScript, a fifth of that compressed).
 */
export const workflowBuilds: Migration = {
  version: 9,
  name: 'workflow-builds',
  up: `
    CREATE TABLE workflow_builds (
      build_id    text        PRIMARY KEY CHECK (build_id ~ '^[0-9a-f]{8,64}$'),
      -- The workflow bundle, gzipped: what the build's runs replay on.
      code_gzip   bytea       NOT NULL,
      stored_at   timestamptz NOT NULL DEFAULT now()
    );
  `,
};
