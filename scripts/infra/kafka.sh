#!/usr/bin/env bash
# Apache Kafka in KRaft mode from Maven Central jars: one node by default (broker and controller in
# one JVM), or MEMSTREAM_KAFKA_NODES=3 combined nodes as production runs it: a 3-voter controller
# quorum, internal and new topics replicated 3 times with min.insync.replicas=2.
# Node i listens on MEMSTREAM_KAFKA_PORT + 2(i-1) and its controller on the controller port + 2(i-1).
# usage: kafka.sh up|down [N]    all nodes, or node N only (MEMSTREAM_KAFKA_FRESH=1: a cold start
#                                of every node begins with empty logs)
#        kafka.sh kill N         SIGKILL node N (a machine lost: no shutdown, no flush)
#        kafka.sh brokers        the bootstrap list, comma-separated
#        kafka.sh rss            resident memory of each running node, in MiB
source "$(dirname "$0")/common.sh"

JARS="$CACHE_DIR/kafka-$KAFKA_VERSION/jars"
STATE="$INFRA_DIR/kafka"
NODES="${MEMSTREAM_KAFKA_NODES:-1}"
[[ "$NODES" =~ ^[1-9]$ ]] || { log "MEMSTREAM_KAFKA_NODES must be 1-9, not '$NODES'"; exit 2; }
# Each node of three hosts a replica of every partition and catches all of them up after a
# restart: 256m ran out there (threads died of OutOfMemoryError while the JVM lived on, and
# topic creation timed out), 512m does not. A node out of heap exits rather than limp along.
if [ "$NODES" = 1 ]; then HEAP="${MEMSTREAM_KAFKA_HEAP:-768m}"; else HEAP="${MEMSTREAM_KAFKA_HEAP:-512m}"; fi

broker_port() { echo $((KAFKA_PORT + 2 * ($1 - 1))); }
controller_port() { echo $((KAFKA_CONTROLLER_PORT + 2 * ($1 - 1))); }
# One node keeps the layout it always had, so an existing single-node state folder stays valid.
node_dir() { if [ "$NODES" = 1 ]; then echo "$STATE"; else echo "$STATE/node-$1"; fi; }
pidfile() { echo "$(node_dir "$1")/kafka.pid"; }

fetch_jars() {
  [ -f "$JARS/.complete" ] && return 0
  log "resolving kafka_2.13:$KAFKA_VERSION from Maven Central"
  mkdir -p "$JARS"
  mvn -q -B -f "$SCRIPTS_DIR/kafka/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$JARS" >&2
  touch "$JARS/.complete"
}

write_config() {
  local i=$1 dir voters="" j rf=1 isr=1
  dir=$(node_dir "$i")
  for ((j = 1; j <= NODES; j++)); do voters+="${voters:+,}$j@127.0.0.1:$(controller_port "$j")"; done
  # Internal topics must not ask for more replicas than there are brokers, or groups never form.
  if [ "$NODES" -ge 3 ]; then rf=3; isr=2; fi
  cat > "$dir/server.properties" <<CONF
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$(broker_port "$i"),CONTROLLER://127.0.0.1:$(controller_port "$i")
advertised.listeners=PLAINTEXT://127.0.0.1:$(broker_port "$i")
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=8
default.replication.factor=$rf
min.insync.replicas=$isr
offsets.topic.replication.factor=$rf
offsets.topic.num.partitions=8
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$isr
share.coordinator.state.topic.replication.factor=$rf
share.coordinator.state.topic.min.isr=$isr
# a broker that lost its data must not become leader with an empty log
unclean.leader.election.enable=false
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
delete.topic.enable=true
CONF
}

# Every node of one cluster is formatted with the same cluster id, kept beside them.
format() {
  local i=$1 dir id
  dir=$(node_dir "$i")
  [ -f "$dir/data/meta.properties" ] && return 0
  if [ ! -f "$STATE/cluster-id" ]; then
    java -cp "$JARS/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1 > "$STATE/cluster-id"
  fi
  id=$(cat "$STATE/cluster-id")
  java -cp "$JARS/*" kafka.tools.StorageTool format -t "$id" -c "$dir/server.properties" >&2
}

start_node() {
  local i=$1 dir
  dir=$(node_dir "$i")
  if pid_alive "$(pidfile "$i")"; then return 0; fi
  mkdir -p "$dir"
  write_config "$i"
  format "$i"
  log "starting kafka $KAFKA_VERSION node $i/$NODES on 127.0.0.1:$(broker_port "$i")"
  # setsid: the broker must outlive the shell that started it (npm test, CI step)
  setsid java "-Xms${MEMSTREAM_KAFKA_HEAP_MIN:-64m}" "-Xmx$HEAP" -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$SCRIPTS_DIR/kafka/log4j.properties" \
    -cp "$JARS/*" kafka.Kafka "$dir/server.properties" > "$dir/kafka.log" 2>&1 < /dev/null &
  echo $! > "$(pidfile "$i")"
}

# The nodes to act on: N alone, or all of them.
nodes_of() { if [ -n "${1:-}" ]; then echo "$1"; else seq 1 "$NODES"; fi; }

check_node() {
  [ -z "${1:-}" ] && return 0
  [[ "$1" =~ ^[1-9]$ ]] && [ "$1" -le "$NODES" ] || { log "no kafka node '$1' of $NODES"; exit 2; }
}

up() {
  command -v java >/dev/null || { log "java (JDK 17) is required"; exit 1; }
  fetch_jars
  mkdir -p "$STATE"
  local i todo=()
  for i in $(nodes_of "${1:-}"); do
    if pid_alive "$(pidfile "$i")" && port_open "$(broker_port "$i")"; then continue; fi
    todo+=("$i")
  done
  [ "${#todo[@]}" -gt 0 ] || { log "kafka already running on $(brokers)"; return 0; }
  # A test broker started cold keeps nothing of an earlier run: its topics belonged to tests that
  # are over, and each partition left holds a file open in the new broker.
  if [ -n "${MEMSTREAM_KAFKA_FRESH:-}" ] && [ "${#todo[@]}" = "$NODES" ]; then
    for i in "${todo[@]}"; do rm -rf "$(node_dir "$i")/data"; done
    rm -f "$STATE/cluster-id"
  fi
  # All at once: a node of a quorum opens its broker port only once a majority of voters is up.
  for i in "${todo[@]}"; do start_node "$i"; done
  for i in "${todo[@]}"; do
    wait_port "$(broker_port "$i")" 120 "kafka node $i" || { tail -n 40 "$(node_dir "$i")/kafka.log" >&2; exit 1; }
  done
}

down() {
  local i
  for i in $(nodes_of "${1:-}"); do stop_pid "$(pidfile "$i")" "kafka node $i"; done
}

kill_node() {
  local i=${1:?usage: kafka.sh kill N} file
  file=$(pidfile "$i")
  pid_alive "$file" || { log "kafka node $i is not running"; return 0; }
  kill -9 "$(cat "$file")"
  while kill -0 "$(cat "$file")" 2>/dev/null; do sleep 0.1; done
  rm -f "$file"
  log "kafka node $i killed"
}

brokers() {
  local i list=""
  for ((i = 1; i <= NODES; i++)); do list+="${list:+,}127.0.0.1:$(broker_port "$i")"; done
  echo "$list"
}

rss() {
  local i
  for ((i = 1; i <= NODES; i++)); do
    if pid_alive "$(pidfile "$i")"; then
      echo "node $i: $(($(awk '/^VmRSS/ {print $2}' "/proc/$(cat "$(pidfile "$i")")/status") / 1024)) MiB"
    else
      echo "node $i: down"
    fi
  done
}

check_node "${2:-}"
case "${1:-}" in
  up) up "${2:-}" ;;
  down) down "${2:-}" ;;
  kill) kill_node "${2:-}" ;;
  brokers) brokers ;;
  rss) rss ;;
  *) echo "usage: $0 up|down [N] | kill N | brokers | rss" >&2; exit 2 ;;
esac
