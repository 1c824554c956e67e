#!/usr/bin/env bash
# Runs one benchmark against the real services: `bash bench/run.sh ingest [--flags]`.
# From a fresh clone it installs the dependencies first; scripts/infra/up.sh starts Kafka,
# PostgreSQL and Redis (or keeps the ones already running, or those KAFKA_BROKERS, DATABASE_URL
# and REDIS_URL point at) and prints the env file with their addresses.
set -euo pipefail
cd "$(dirname "$0")/.."

name="${1:?usage: bash bench/run.sh <benchmark> [flags]}"
[ -f "bench/$name.ts" ] || { echo "no benchmark bench/$name.ts" >&2; exit 2; }

if [ ! -d node_modules/undici ] || [ ! -d node_modules/pg-copy-streams ] || [ ! -d node_modules/tsx ]; then
  npm ci --no-audit --no-fund >&2
fi

envfile=$(bash scripts/infra/up.sh)
# shellcheck disable=SC1090
source "$envfile"

exec node --import tsx "bench/$name.ts" "${@:2}"
