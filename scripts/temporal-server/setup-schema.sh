#!/bin/sh
# Creates (when missing) and upgrades Temporal's two PostgreSQL databases: `temporal`
# (persistence) and `temporal_visibility` (SQL visibility, which holds our search
# attributes). Idempotent: run it before every server start, as an upgrade step too.
# Used by scripts/temporal-postgres.ts (our built temporal-sql-tool, schema from the Go
# module) and by docker-compose.yml (the temporalio/admin-tools image), so both take the
# same steps.
#
# Environment: POSTGRES_SEEDS, DB_PORT, POSTGRES_USER, POSTGRES_PWD (as the server config
# reads them), SCHEMA_DIR (the server's schema/ dir, default /etc/temporal/schema),
# SQL_TOOL (default temporal-sql-tool).
set -eu
: "${POSTGRES_SEEDS:=127.0.0.1}" "${DB_PORT:=5432}" "${POSTGRES_USER:?}" "${POSTGRES_PWD:?}"
: "${SCHEMA_DIR:=/etc/temporal/schema}" "${SQL_TOOL:=temporal-sql-tool}"

for pair in "temporal:temporal" "temporal_visibility:visibility"; do
  db=${pair%%:*}
  dir="$SCHEMA_DIR/postgresql/v12/${pair##*:}"
  sql() {
    "$SQL_TOOL" --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" --db "$db" "$@"
  }
  # create-database fails when the database exists; setup-schema -v 0.0 only creates the
  # version table when it is missing. update-schema then applies what is newer.
  sql create-database >/dev/null 2>&1 || true
  sql setup-schema -v 0.0
  sql update-schema -d "$dir/versioned"
done
