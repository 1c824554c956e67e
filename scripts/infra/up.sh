#!/usr/bin/env bash
# Starts what the tests need, in parallel, and writes the connection settings to $INFRA_DIR/env.
# A service whose variable is already set (KAFKA_BROKERS, DATABASE_URL, REDIS_URL) is used as it is:
# that is how the same suite runs against docker-compose or a cluster.
source "$(dirname "$0")/common.sh"
here="$(dirname "$0")"

# The edge's nginx is only installed: each distributed-mode test starts its own (harness/edge.ts).
# Before the parallel starts, as redis.sh may run apt-get too and dpkg takes one at a time.
bash "$here/nginx.sh" install
# Patroni, etcd and HAProxy for the fault suite's PostgreSQL with failover (postgres-ha.sh), likewise
bash "$here/postgres-ha.sh" install

pids=()
# The tests' broker holds only the topics of tests running now: a cold start drops what is left.
[ -n "${KAFKA_BROKERS:-}" ] || { MEMSTREAM_KAFKA_FRESH=1 bash "$here/kafka.sh" up & pids+=($!); }
[ -n "${DATABASE_URL:-}" ] || { bash "$here/postgres.sh" up & pids+=($!); }
[ -n "${REDIS_URL:-}" ] || { bash "$here/redis.sh" up & pids+=($!); }
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ "$status" = 0 ] || { log "infrastructure failed to start"; exit 1; }

cat > "$INFRA_DIR/env" <<ENV
export KAFKA_BROKERS="${KAFKA_BROKERS:-$(bash "$here/kafka.sh" brokers)}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:$PG_PORT/memstream}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:$REDIS_PORT}"
ENV
log "ready: $(tr '\n' ' ' < "$INFRA_DIR/env")"
echo "$INFRA_DIR/env"
