import type { Migration } from './types';

/**
 * A stored build is code every worker may run, so it is written once, by the worker's role
 * only, and never changed (docs/production.md, "Database roles"):
 *
 * - `sdk_version`: the @temporalio/workflow the bundle was built with; a worker refuses a
 *   bundle of another SDK (src/db/workflow-build-store.ts). New rows must have it and a full
 *   SHA-256 as their ID; rows of earlier workers are kept, and refused when loaded.
 * - Append-only for everyone, the table's owner included: a trigger refuses UPDATE, DELETE and
 *   TRUNCATE (a grant can be widened by mistake, and in the local stack one role owns all).
 * - Privileges: no role but the owner keeps INSERT, UPDATE, DELETE or TRUNCATE (the default
 *   privileges of docker/postgres/onceflow-roles.psql gave the app role all four); the role
 *   named by the database setting `onceflow.build_writer` (the roles script sets it to the
 *   worker's role) may SELECT and INSERT. Everyone else who could read it still can.
 */
export const verifiedBuilds: Migration = {
  version: 10,
  name: 'verified-builds',
  up: `
    ALTER TABLE workflow_builds ADD COLUMN sdk_version text;
    ALTER TABLE workflow_builds ADD CONSTRAINT workflow_builds_verifiable
      CHECK (build_id ~ '^[0-9a-f]{64}$' AND sdk_version IS NOT NULL) NOT VALID;

    CREATE FUNCTION refuse_workflow_build_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'workflow_builds is append-only: a stored build is never changed or removed'
        USING ERRCODE = '42501';
    END $$;
    CREATE TRIGGER workflow_builds_append_only BEFORE UPDATE OR DELETE ON workflow_builds
      FOR EACH ROW EXECUTE FUNCTION refuse_workflow_build_change();
    CREATE TRIGGER workflow_builds_no_truncate BEFORE TRUNCATE ON workflow_builds
      FOR EACH STATEMENT EXECUTE FUNCTION refuse_workflow_build_change();

    DO $$
    DECLARE
      grantee text;
      writer text := NULLIF(current_setting('onceflow.build_writer', true), '');
    BEGIN
      FOR grantee IN
        SELECT DISTINCT CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END
          FROM pg_class c, aclexplode(c.relacl) a
         WHERE c.oid = 'workflow_builds'::regclass AND a.grantee <> c.relowner
           AND a.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE')
      LOOP
        EXECUTE 'REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON workflow_builds FROM ' || grantee;
      END LOOP;
      IF to_regrole(quote_ident(writer)) IS NOT NULL THEN
        EXECUTE format('GRANT SELECT, INSERT ON workflow_builds TO %I', writer);
      END IF;
    END $$;
  `,
};
