#!/usr/bin/env bash
# Redis with Sentinel on loopback, for trying memstream's REDIS_URL=redis+sentinel://...: a master,
# one replica of it and one sentinel (quorum 1) that promotes the replica when the master stops
# answering for a second. Debian's redis-sentinel package runs the same redis-server binary in
# sentinel mode, so redis-server (redis.sh installs it) is all this needs. Production runs three
# sentinels on three machines (quorum 2); one is enough to exercise a failover here.
# usage: redis-sentinel.sh up|down|kill-master
#   ports: MEMSTREAM_SENTINEL_BASE_PORT (36379) for the first master, +1 its replica, +2 the sentinel
source "$(dirname "$0")/common.sh"

BASE="${MEMSTREAM_SENTINEL_BASE_PORT:-36379}"
STATE="$INFRA_DIR/redis-sentinel-$BASE"
MASTER_NAME=memstream

server() { # server PORT [extra args]: a Redis without persistence, as redis.sh runs it
  local port=$1
  shift
  redis-server --bind 127.0.0.1 --port "$port" --dir "$STATE" --save '' --appendonly no --daemonize yes \
    --pidfile "$STATE/redis-$port.pid" --logfile "$STATE/redis-$port.log" "$@"
  wait_port "$port" 20 "redis $port"
}

up() {
  command -v redis-server >/dev/null || { log "redis-server is missing: run scripts/infra/redis.sh up first"; exit 1; }
  mkdir -p "$STATE"
  pid_alive "$STATE/redis-$BASE.pid" || server "$BASE"
  pid_alive "$STATE/redis-$((BASE + 1)).pid" || server "$((BASE + 1))" --replicaof 127.0.0.1 "$BASE"
  if ! pid_alive "$STATE/sentinel.pid"; then
    # The sentinel rewrites its own file (what it learnt of the topology): it gets a fresh one.
    cat >"$STATE/sentinel.conf" <<CONF
bind 127.0.0.1
port $((BASE + 2))
daemonize yes
pidfile $STATE/sentinel.pid
logfile $STATE/sentinel.log
dir $STATE
sentinel monitor $MASTER_NAME 127.0.0.1 $BASE 1
sentinel down-after-milliseconds $MASTER_NAME 1000
sentinel failover-timeout $MASTER_NAME 5000
CONF
    redis-server "$STATE/sentinel.conf" --sentinel
    wait_port "$((BASE + 2))" 20 sentinel
  fi
  log "redis master $BASE, replica $((BASE + 1)), sentinel $((BASE + 2)) (master name $MASTER_NAME)"
}

down() {
  stop_pid "$STATE/sentinel.pid" sentinel
  stop_pid "$STATE/redis-$((BASE + 1)).pid" "redis $((BASE + 1))"
  stop_pid "$STATE/redis-$BASE.pid" "redis $BASE"
  rm -rf "$STATE"
}

# The master as the sentinel names it now, SIGKILLed: a machine that died.
kill_master() {
  local port
  port=$(redis-cli -p "$((BASE + 2))" sentinel get-master-addr-by-name "$MASTER_NAME" | sed -n 2p)
  kill -9 "$(cat "$STATE/redis-$port.pid")"
  log "redis master $port killed"
}

case "${1:-}" in up) up ;; down) down ;; kill-master) kill_master ;; *) echo "usage: $0 up|down|kill-master" >&2; exit 2 ;; esac
