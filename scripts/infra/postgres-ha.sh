#!/usr/bin/env bash
# PostgreSQL with failover on loopback: MEMSTREAM_PG_HA_NODES PostgreSQL nodes (the pgvector
# binaries of postgres.sh) each managed by Patroni, one etcd holding the leader lock, and HAProxy
# sending one fixed port to whichever node Patroni's REST API calls primary. Clients keep one DATABASE_URL:
# node-postgres connects to one host, so the address must follow the primary, not the client.
# synchronous_mode: a commit is acknowledged once a standby has it, and only a synchronous
# standby may be promoted, so an acknowledged write survives the loss of the primary.
# From three nodes on, synchronous_mode_strict as well: with no synchronous standby left, commits
# wait instead of being acknowledged on one machine. With two, strict would stop writes whenever
# either node is lost, so two nodes keep writing alone while the standby is away.
# usage: postgres-ha.sh install|up|down|destroy|kill-primary|kill-node N|start-node N|primary|roles|rss
source "$(dirname "$0")/common.sh"

NODES="${MEMSTREAM_PG_HA_NODES:-3}"
STRICT=$([ "$NODES" -ge 3 ] && echo true || echo false)
# HAProxy: the primary on BASE, the standbys on BASE+30; node n: postgres BASE+n, REST BASE+10+n; etcd BASE+20/21
BASE="${MEMSTREAM_PG_HA_PORT:-15440}"
ETCD_PORT=$((BASE + 20))
STATE="$INFRA_DIR/postgres-ha"
SCOPE="memstream-$BASE" # the etcd key prefix, so two clusters never share a leader lock

pg_port() { echo $((BASE + $1)); }
rest_port() { echo $((BASE + 10 + $1)); }

install() {
  command -v patroni >/dev/null && command -v etcd >/dev/null && command -v haproxy >/dev/null && return 0
  [ "$(id -u)" = 0 ] || { log "run 'apt-get install patroni etcd-server haproxy' as root"; exit 1; }
  log "installing patroni, etcd-server and haproxy from Debian"
  local pkgs=(patroni etcd-server haproxy)
  # dpkg takes one install at a time: wait for another's lock rather than fail
  local apt=(apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${pkgs[@]}")
  ("${apt[@]}" >/dev/null 2>&1) || { apt-get update -qq && "${apt[@]}" >/dev/null; }
}

# run_patroni CONFIG: becomes Patroni (exec, no fork: the recorded pid is Patroni's own) as the
# unprivileged user, in a session of its own so it outlives the shell that started it.
run_patroni() {
  if [ "$(id -u)" = 0 ]; then
    exec setpriv --reuid="$(id -u "$PG_USER_OS")" --regid="$(id -g "$PG_USER_OS")" --clear-groups \
      env HOME="$STATE" setsid patroni "$1"
  fi
  exec setsid patroni "$1"
}

write_patroni_config() {
  local n=$1 dir="$STATE/pg$1"
  cat > "$dir/patroni.yml" <<YAML
scope: $SCOPE
name: pg$n
restapi:
  listen: 127.0.0.1:$(rest_port "$n")
  connect_address: 127.0.0.1:$(rest_port "$n")
etcd3:
  hosts: 127.0.0.1:$ETCD_PORT
log:
  level: INFO # says when it promotes, demotes and rewinds
  dir: $dir
  file_size: 10000000
  file_num: 2
bootstrap:
  dcs:
    # a dead primary's lock expires after ttl s; loop_wait + 2 x retry_timeout must fit in it
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    synchronous_mode: true
    synchronous_mode_strict: $STRICT
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 200
        shared_buffers: 128MB
        wal_keep_size: 256MB
        synchronous_commit: "on"
  initdb: [{encoding: UTF8}, no-locale]
postgresql:
  listen: 127.0.0.1:$(pg_port "$n")
  connect_address: 127.0.0.1:$(pg_port "$n")
  data_dir: $dir/data
  bin_dir: $BIN
  pgpass: $dir/pgpass
  # loopback only, like the single server: trust, and the superuser replicates and rewinds
  authentication:
    superuser: {username: postgres}
    replication: {username: postgres}
    rewind: {username: postgres}
  parameters:
    unix_socket_directories: $dir
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
watchdog:
  mode: "off"
YAML
}

write_haproxy_config() {
  {
    cat <<CFG
global
  maxconn 2000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 2s
listen primary
  bind 127.0.0.1:$BASE
  # OPTIONS: the status alone; a GET answered with a body the check never reads fills Patroni's log with resets
  option httpchk OPTIONS /primary
  http-check expect status 200
  # a node that stops being primary loses its sessions at once: a client must not keep writing to a standby
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
CFG
    for ((n = 1; n <= NODES; n++)); do
      echo "  server pg$n 127.0.0.1:$(pg_port "$n") check port $(rest_port "$n")"
    done
    # the streaming standbys, for reads that may lag (what CloudNativePG calls the -ro Service)
    cat <<CFG
listen replicas
  bind 127.0.0.1:$((BASE + 30))
  balance roundrobin
  option httpchk OPTIONS /replica
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
CFG
    for ((n = 1; n <= NODES; n++)); do
      echo "  server pg$n 127.0.0.1:$(pg_port "$n") check port $(rest_port "$n")"
    done
  } > "$STATE/haproxy.cfg"
}

start_etcd() {
  pid_alive "$STATE/etcd.pid" && return 0
  setsid etcd --name etcd --data-dir "$STATE/etcd" --log-level warn \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "etcd=http://127.0.0.1:$((ETCD_PORT + 1))" > "$STATE/etcd.log" 2>&1 < /dev/null &
  echo $! > "$STATE/etcd.pid"
  wait_port "$ETCD_PORT" 30 etcd || { tail -n 20 "$STATE/etcd.log" >&2; exit 1; }
}

start_node() {
  local n=$1 dir="$STATE/pg$1"
  pid_alive "$dir/patroni.pid" && return 0
  mkdir -p "$dir"
  write_patroni_config "$n"
  [ "$(id -u)" = 0 ] && chown -R "$PG_USER_OS" "$dir"
  # Patroni logs to patroni.log itself (rotated); what is left on stderr is PostgreSQL's server log
  run_patroni "$dir/patroni.yml" >> "$dir/postgres.log" 2>&1 < /dev/null &
  echo $! > "$dir/patroni.pid"
}

# http_ok PORT PATH: Patroni's REST API answers 200 (its health endpoints answer 503 otherwise).
http_ok() { [ "$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$1$2")" = 200 ]; }

primary() {
  for ((n = 1; n <= NODES; n++)); do http_ok "$(rest_port "$n")" /primary && { echo "pg$n"; return 0; }; done
  return 1
}

# wait_for SECONDS WHAT CMD...: polls CMD every 0.2 s.
wait_for() {
  local limit=$1 what=$2 i
  shift 2
  for ((i = 0; i < limit * 5; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  log "no $what within ${limit}s"
  return 1
}

sync_standby() {
  for ((n = 1; n <= NODES; n++)); do http_ok "$(rest_port "$n")" /sync && return 0; done
  return 1
}

# roles: each running node's name and role as Patroni's cluster view has them (leader, sync_standby, replica).
roles() {
  local n view
  for ((n = 1; n <= NODES; n++)); do
    view=$(curl -sf -m 2 "http://127.0.0.1:$(rest_port "$n")/cluster") || continue
    python3 -c 'import json, sys
for m in json.loads(sys.argv[1])["members"]:
    if m["state"] in ("running", "streaming"): print(m["name"], m["role"])' "$view" && return 0
  done
  return 1
}

all_streaming() { [ "$(roles | grep -c -v leader)" -ge $((NODES - 1)) ]; }

# HAProxy reaches a node that is not in recovery (until its first checks, it may count any node up).
routed_to_primary() {
  [ "$("$BIN/psql" -h 127.0.0.1 -p "$BASE" -U postgres -tAc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]
}

# memstream's database, made when missing. Tried again until it answers: on a state kept from an
# earlier run, the nodes start as standbys and Patroni restarts those that follow the new leader,
# and until HAProxy's checks catch up a connection can reach one of them and be cut (the check
# then answered nothing, and createdb found the database there).
memstream_database() {
  "$BIN/psql" -h 127.0.0.1 -p "$BASE" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='memstream'" | grep -q 1 ||
    "$BIN/createdb" -h 127.0.0.1 -p "$BASE" -U postgres memstream
}

up() {
  install
  BIN="$(bash "$SCRIPTS_DIR/postgres.sh" bin)"
  mkdir -p "$STATE"
  local started=$SECONDS
  start_etcd
  for ((n = 1; n <= NODES; n++)); do start_node "$n"; done
  wait_for 90 primary primary || { tail -n 30 "$STATE"/pg*/*.log >&2; exit 1; }
  wait_for 90 "synchronous standby" sync_standby || { tail -n 30 "$STATE"/pg*/*.log >&2; exit 1; }
  if ! pid_alive "$STATE/haproxy.pid"; then
    write_haproxy_config
    haproxy -D -f "$STATE/haproxy.cfg" -p "$STATE/haproxy.pid" < /dev/null > /dev/null 2>> "$STATE/haproxy.log"
  fi
  wait_for 30 "route to the primary" routed_to_primary
  wait_for 60 "memstream database" memstream_database || { tail -n 30 "$STATE"/pg*/*.log >&2; exit 1; }
  # every standby streaming, so a failover right after this has a standby for strict mode to wait on
  wait_for 90 "every standby streaming" all_streaming || { tail -n 30 "$STATE"/pg*/*.log >&2; exit 1; }
  log "postgres-ha: $(primary) primary of $NODES; primary on 127.0.0.1:$BASE, standbys on $((BASE + 30)); up in $((SECONDS - started)) s"
}

# kill_node N: SIGKILL the node's Patroni and its PostgreSQL at once, as the loss of its machine would.
kill_node() {
  local dir="$STATE/pg$1" pids=()
  [ -f "$dir/patroni.pid" ] && pids+=("$(cat "$dir/patroni.pid")")
  if [ -f "$dir/data/postmaster.pid" ]; then
    local pm
    pm=$(head -n 1 "$dir/data/postmaster.pid")
    pids+=("$pm" $(pgrep -P "$pm" || true))
  fi
  [ ${#pids[@]} -gt 0 ] && kill -9 "${pids[@]}" 2>/dev/null || true
  rm -f "$dir/patroni.pid"
}

down() {
  stop_pid "$STATE/haproxy.pid" haproxy
  for ((n = 1; n <= NODES; n++)); do stop_pid "$STATE/pg$n/patroni.pid" "patroni pg$n" & done
  wait
  # a postmaster whose Patroni was killed is stopped here
  for ((n = 1; n <= NODES; n++)); do
    local pidfile="$STATE/pg$n/data/postmaster.pid"
    [ -f "$pidfile" ] && kill -0 "$(head -n 1 "$pidfile")" 2>/dev/null && kill -INT "$(head -n 1 "$pidfile")"
  done
  stop_pid "$STATE/etcd.pid" etcd
}

# rss: resident memory of each process of the cluster, in MiB.
rss() {
  local name pid
  for f in "$STATE/etcd.pid" "$STATE/haproxy.pid" "$STATE"/pg*/patroni.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    name=$(basename "$(dirname "$f")")/$(basename "$f" .pid)
    ps -o rss= -p "$pid" | awk -v n="$name" '{printf "%s %.1f\n", n, $1 / 1024}'
  done
  for f in "$STATE"/pg*/data/postmaster.pid; do
    [ -f "$f" ] || continue
    pid=$(head -n 1 "$f")
    # the postmaster and each background process by its title; client backends summed
    ps -o rss=,args= --pid "$pid" --ppid "$pid" | awk -v n="$(basename "$(dirname "$(dirname "$f")")")" '
      { t = ($2 !~ /^postgres:/) ? "postmaster" : ($4 == "postgres") ? "backends" : $4 " " $5; sub(/ +$/, "", t)
        if (!(t in rss)) order[++k] = t
        rss[t] += $1; count[t]++ }
      END { for (i = 1; i <= k; i++) printf "%s/%s%s %.1f\n", n, order[i], (count[order[i]] > 1 ? " x" count[order[i]] : ""), rss[order[i]] / 1024 }'
  done
}

case "${1:-}" in
  install) install ;;
  up) up ;;
  down) down ;;
  destroy) down && rm -rf "$STATE" ;;
  primary) primary ;;
  roles) roles ;;
  kill-primary) p=$(primary) && kill_node "${p#pg}" && echo "$p" ;;
  kill-node) kill_node "$2" ;;
  start-node) BIN="$(bash "$SCRIPTS_DIR/postgres.sh" bin)" && start_node "$2" ;;
  rss) rss ;;
  *) echo "usage: $0 install|up|down|destroy|primary|roles|kill-primary|kill-node N|start-node N|rss" >&2; exit 2 ;;
esac
