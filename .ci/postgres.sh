#!/usr/bin/env bash
# Start a throw-away PostgreSQL server on loopback for the scale-out tests (Optuna RDB storage,
# MLflow backend store).
#
# Installs Debian's `postgresql` when initdb is missing, creates a data dir under
# $HARNESSX_PG_STATE (default: a folder in the temp dir), runs the server as the `postgres` user
# on 127.0.0.1:$HARNESSX_PG_PORT with trust auth for loopback only, and writes
#   $HARNESSX_PG_STATE/postmaster.pid   the server's PID (stop it with kill, see below)
#   $HARNESSX_PG_STATE/url              postgresql://postgres@127.0.0.1:PORT/postgres
set -euo pipefail

STATE=${HARNESSX_PG_STATE:-${TMPDIR:-/tmp}/harnessx-postgres}
PORT=${HARNESSX_PG_PORT:-54329}

find_bin() {
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/$1" ] && { echo "$dir/$1"; return 0; }
  done
  command -v "$1" || return 1
}

if ! find_bin initdb >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
INITDB=$(find_bin initdb)
PG_CTL=$(find_bin pg_ctl)
PG_ISREADY=$(find_bin pg_isready)

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

mkdir -p "$STATE"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$STATE"
if [ ! -f "$STATE/data/PG_VERSION" ]; then
  as_pg "$INITDB" -D "$STATE/data" -U postgres --auth=trust -E UTF8 >"$STATE/initdb.log" 2>&1
fi
if ! "$PG_ISREADY" -h 127.0.0.1 -p "$PORT" >/dev/null 2>&1; then
  as_pg "$PG_CTL" -D "$STATE/data" -l "$STATE/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $STATE -c max_connections=200 -c fsync=off" start >/dev/null
fi
head -1 "$STATE/data/postmaster.pid" >"$STATE/postmaster.pid"
echo "postgresql://postgres@127.0.0.1:$PORT/postgres" >"$STATE/url"
echo "postgres ready at $(cat "$STATE/url") (PID $(cat "$STATE/postmaster.pid"))"
echo "stop it with: kill \"\$(cat $STATE/postmaster.pid)\""
