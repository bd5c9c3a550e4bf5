#!/bin/sh
# Run by the postgres image on its first start (docker-entrypoint-initdb.d): creates the
# roles and databases of docker/postgres/onceflow-roles.psql from the container's environment.
set -eu
psql --no-psqlrc --username "$POSTGRES_USER" --dbname postgres \
  -v temporal_role="$TEMPORAL_DB_USER" \
  -v temporal_password="$TEMPORAL_DB_PASSWORD" \
  -v temporal_db=temporal \
  -v temporal_visibility_db=temporal_visibility \
  -v owner_role="$ONCEFLOW_DB_OWNER" \
  -v owner_password="$ONCEFLOW_DB_OWNER_PASSWORD" \
  -v app_role="$ONCEFLOW_DB_USER" \
  -v app_password="$ONCEFLOW_DB_PASSWORD" \
  -v worker_role="$ONCEFLOW_WORKER_DB_USER" \
  -v worker_password="$ONCEFLOW_WORKER_DB_PASSWORD" \
  -v onceflow_db="$ONCEFLOW_DB" \
  -f /docker-entrypoint-initdb.d/onceflow-roles.psql
