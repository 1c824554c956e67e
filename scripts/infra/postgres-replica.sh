#!/usr/bin/env bash
# Streaming replicas (hot standbys) of the PostgreSQL that postgres.sh started, for the read API's
# DATABASE_REPLICA_URLS: each a pg_basebackup -R of the primary on a port of its own, run by the
# same binaries and the same unprivileged OS user. Run postgres.sh up first (same
# MEMSTREAM_INFRA_DIR and MEMSTREAM_PG_PORT): the primary is the server on MEMSTREAM_PG_PORT.
# usage: postgres-replica.sh up|down|stop|start PORT...
#   up     makes each replica that does not exist yet, then starts it
#   stop   stops a replica, keeping its data (a replica that went away)
#   start  starts a stopped replica again; it catches up from the primary's WAL
#   down   stops each replica and removes its data
source "$(dirname "$0")/common.sh"

VENV="$CACHE_DIR/pg-venv-$PG_MAJOR"

as_pg_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$PG_USER_OS" -- "$@"; else "$@"; fi
}

binaries() {
  [ -x "$VENV/bin/python" ] || { log "no PostgreSQL binaries: run scripts/infra/postgres.sh up first"; exit 1; }
  BIN="$("$VENV/bin/python" -W ignore -c 'import os, pgserver; print(os.path.join(os.path.dirname(pgserver.__file__), "pginstall", "bin"))')"
}

state_of() { echo "$INFRA_DIR/postgres-replica-$1"; }

start_replica() {
  local port=$1 state data
  state=$(state_of "$port")
  data="$state/data"
  if as_pg_user "$BIN/pg_ctl" -D "$data" status >/dev/null 2>&1 && port_open "$port"; then
    log "replica already running on $port"; return 0
  fi
  log "starting replica of $PG_PORT on 127.0.0.1:$port"
  # A hot standby needs max_connections at least the primary's (postgres.sh sets 200). Feedback
  # keeps the primary's vacuum from removing rows a replica's running read still needs, so such a
  # read is not cancelled by the replay.
  as_pg_user "$BIN/pg_ctl" -D "$data" -l "$state/postgres.log" -w -t 60 start \
    -o "-p $port -k $state -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=64MB -c hot_standby_feedback=on" >/dev/null
}

up_replica() {
  local port=$1 state
  state=$(state_of "$port")
  mkdir -p "$state"
  [ "$(id -u)" = 0 ] && chown "$PG_USER_OS" "$state"
  if [ ! -f "$state/data/PG_VERSION" ]; then
    log "pg_basebackup of 127.0.0.1:$PG_PORT into $state/data"
    # -R writes standby.signal and primary_conninfo; -X stream copies the WAL made meanwhile.
    as_pg_user "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_PORT" -U postgres -D "$state/data" -R -X stream -c fast
  fi
  start_replica "$port"
}

stop_replica() {
  local data
  data="$(state_of "$1")/data"
  if [ -f "$data/postmaster.pid" ]; then
    as_pg_user "$BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null && log "replica on $1 stopped"
  fi
}

action=${1:-}
shift || true
[ "$#" -gt 0 ] || { echo "usage: $0 up|down|stop|start PORT..." >&2; exit 2; }
binaries
for port in "$@"; do
  case "$action" in
    up) up_replica "$port" ;;
    start) start_replica "$port" ;;
    stop) stop_replica "$port" ;;
    down) stop_replica "$port"; rm -rf "$(state_of "$port")" ;;
    *) echo "usage: $0 up|down|stop|start PORT..." >&2; exit 2 ;;
  esac
done
