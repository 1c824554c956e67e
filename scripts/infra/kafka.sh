#!/usr/bin/env bash
# Apache Kafka, single node in KRaft mode (broker and controller in one JVM), from Maven Central jars.
# usage: kafka.sh up|down
source "$(dirname "$0")/common.sh"

JARS="$CACHE_DIR/kafka-$KAFKA_VERSION/jars"
STATE="$INFRA_DIR/kafka"
PIDFILE="$STATE/kafka.pid"

fetch_jars() {
  [ -f "$JARS/.complete" ] && return 0
  log "resolving kafka_2.13:$KAFKA_VERSION from Maven Central"
  mkdir -p "$JARS"
  mvn -q -B -f "$SCRIPTS_DIR/kafka/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$JARS" >&2
  touch "$JARS/.complete"
}

write_config() {
  cat > "$STATE/server.properties" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$STATE/data
num.partitions=8
# one node: internal topics must have replication factor 1 or consumer groups never form
offsets.topic.replication.factor=1
offsets.topic.num.partitions=8
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
delete.topic.enable=true
CONF
}

up() {
  if pid_alive "$PIDFILE" && port_open "$KAFKA_PORT"; then log "kafka already running on $KAFKA_PORT"; return 0; fi
  command -v java >/dev/null || { log "java (JDK 17) is required"; exit 1; }
  fetch_jars
  mkdir -p "$STATE"
  write_config
  if [ ! -f "$STATE/data/meta.properties" ]; then
    local id
    id=$(java -cp "$JARS/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)
    java -cp "$JARS/*" kafka.tools.StorageTool format -t "$id" -c "$STATE/server.properties" >&2
  fi
  log "starting kafka $KAFKA_VERSION on 127.0.0.1:$KAFKA_PORT"
  # setsid: the broker must outlive the shell that started it (npm test, CI step)
  setsid java -Xms256m -Xmx768m -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$SCRIPTS_DIR/kafka/log4j.properties" \
    -cp "$JARS/*" kafka.Kafka "$STATE/server.properties" > "$STATE/kafka.log" 2>&1 < /dev/null &
  echo $! > "$PIDFILE"
  wait_port "$KAFKA_PORT" 90 kafka || { tail -n 40 "$STATE/kafka.log" >&2; exit 1; }
}

down() { stop_pid "$PIDFILE" kafka; }

case "${1:-}" in up) up ;; down) down ;; *) echo "usage: $0 up|down" >&2; exit 2 ;; esac
