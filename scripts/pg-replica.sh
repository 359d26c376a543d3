#!/usr/bin/env bash
# A streaming standby of the local PostgreSQL (Debian's cluster on 127.0.0.1:5432), for the read-replica tests
# and bench: `pg_basebackup -R` into DIR/data, started with pg_ctl on a free port of 127.0.0.1 with
# hot_standby=on, as the postgres OS user (run this as root or as postgres).
#
#   scripts/pg-replica.sh start DIR   make the standby in DIR (an empty or missing folder) if it is not there,
#                                     start it, and print its URL (postgres://…@127.0.0.1:<port>/postgres)
#   scripts/pg-replica.sh halt DIR    stop its server, keep its data and port (start takes it back)
#   scripts/pg-replica.sh stop DIR    stop it and remove DIR
#
# PRIMARY_PORT (5432), PGUSER (postgres) and PGPASSWORD (postgres) name the primary. Debian's pg_hba.conf has
# no `host replication` line for 127.0.0.1: start adds one (with the method its loopback line already uses)
# and reloads the primary. wal_level is `replica` by default.
set -euo pipefail

command="${1:-}"
dir="${2:-}"
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|halt|stop DIR" >&2
  exit 2
fi
primary_port="${PRIMARY_PORT:-5432}"
user="${PGUSER:-postgres}"
password="${PGPASSWORD:-postgres}"
bin="/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -V | tail -1)/bin"

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else su postgres -s /bin/bash -c "$(printf '%q ' "$@")"; fi
}

primary_sql() {
  as_postgres psql -h 127.0.0.1 -p "$primary_port" -U "$user" -d postgres -Atc "$1"
}

allow_replication() {
  local hba
  hba="$(PGPASSWORD="$password" primary_sql 'SHOW hba_file')"
  if grep -Eq '^\s*host\s+replication\s+\S+\s+127\.0\.0\.1/32' "$hba"; then return; fi
  # The method the server already asks of loopback connections (trust on a developer's machine, a password
  # on a fresh Debian install).
  local method
  method="$(awk '$1 == "host" && $2 == "all" && $4 == "127.0.0.1/32" { print $5; exit }' "$hba")"
  echo "host replication $user 127.0.0.1/32 ${method:-scram-sha-256}" >>"$hba"
  PGPASSWORD="$password" primary_sql 'SELECT pg_reload_conf()' >/dev/null
}

free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

make_standby() {
  mkdir -p "$dir"
  chown postgres "$dir"
  allow_replication
  free_port >"$dir/port"
  local port
  port="$(cat "$dir/port")"
  # The password in the connection string, so -R writes it into the standby's primary_conninfo.
  as_postgres "$bin/pg_basebackup" -d "host=127.0.0.1 port=$primary_port user=$user password=$password" \
    -D "$dir/data" -R -X stream -c fast >/dev/null
  # Settings a hot standby must have at least as high as its primary's.
  local settings
  settings="$(PGPASSWORD="$password" primary_sql "SELECT string_agg(name || ' = ' || setting, E'\n') FROM pg_settings
    WHERE name IN ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions',
                   'max_locks_per_transaction')")"
  as_postgres tee "$dir/data/postgresql.conf" >/dev/null <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
hot_standby = on
$settings
CONF
  as_postgres tee "$dir/data/pg_hba.conf" >/dev/null <<HBA
local all all trust
host all all 127.0.0.1/32 trust
HBA
}

case "$command" in
  start)
    if [ ! -f "$dir/data/standby.signal" ]; then make_standby; fi
    port="$(cat "$dir/port")"
    if ! as_postgres "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgresql.log" -w -t 60 start >/dev/null
    fi
    in_recovery=""
    for _ in $(seq 1 60); do
      if as_postgres psql -h 127.0.0.1 -p "$port" -U "$user" -d postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null |
        grep -q t; then
        in_recovery=1
        break
      fi
      sleep 0.5
    done
    # A URL only for a standby that answers as one (a caller would otherwise test against nothing).
    if [ -z "$in_recovery" ]; then
      echo "$0: the standby on port $port does not answer as a standby; its log:" >&2
      tail -n 20 "$dir/postgresql.log" >&2 || true
      exit 1
    fi
    echo "postgres://$user:$password@127.0.0.1:$port/postgres"
    ;;
  halt)
    if [ -f "$dir/data/postmaster.pid" ]; then as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null; fi
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null; fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|halt|stop DIR" >&2
    exit 2
    ;;
esac
