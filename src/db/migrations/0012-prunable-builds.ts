import type { Migration } from './types';

/**
 * A stored build is still never changed, and now removable in one way only: by the table's
 * owner (no other role holds DELETE: migration 0010), inside a transaction that says so
 * (`SET LOCAL onceflow.prune_builds = 'on'`, what `onceflow builds prune` does for builds no
 * run can need any more). Without it the table grew by a bundle for every build ever run. The
 * owner could always remove a row by disabling the trigger; the setting makes that an explicit,
 * one-transaction act instead of a trigger left disabled by mistake. UPDATE and TRUNCATE stay
 * refused for everyone.
 */
export const prunableBuilds: Migration = {
  version: 12,
  name: 'prunable-builds',
  up: `
    CREATE OR REPLACE FUNCTION refuse_workflow_build_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' AND current_setting('onceflow.prune_builds', true) = 'on' THEN
        RETURN OLD;
      END IF;
      RAISE EXCEPTION 'workflow_builds is append-only: a stored build is never changed, and removed only by onceflow builds prune'
        USING ERRCODE = '42501';
    END $$;
  `,
};
