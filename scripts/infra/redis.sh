#!/usr/bin/env bash
# Redis from Debian's redis-server, on loopback, no persistence (it only fans out live events).
# usage: redis.sh up|down
source "$(dirname "$0")/common.sh"

STATE="$INFRA_DIR/redis"
PIDFILE="$STATE/redis.pid"

install() {
  command -v redis-server >/dev/null && return 0
  [ "$(id -u)" = 0 ] || { log "redis-server is missing: run 'apt-get install redis-server' as root"; exit 1; }
  log "installing redis-server from Debian"
  (apt-get install -y -qq redis-server >/dev/null 2>&1) || { apt-get update -qq && apt-get install -y -qq redis-server >/dev/null; }
}

up() {
  if pid_alive "$PIDFILE" && port_open "$REDIS_PORT"; then log "redis already running on $REDIS_PORT"; return 0; fi
  install
  mkdir -p "$STATE"
  log "starting redis on 127.0.0.1:$REDIS_PORT"
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$STATE" --save '' --appendonly no \
    --daemonize yes --pidfile "$PIDFILE" --logfile "$STATE/redis.log"
  wait_port "$REDIS_PORT" 20 redis
}

down() { stop_pid "$PIDFILE" redis; }

case "${1:-}" in up) up ;; down) down ;; *) echo "usage: $0 up|down" >&2; exit 2 ;; esac
