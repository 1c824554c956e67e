#!/bin/sh
# The container's entry point: runs one memstream process, named by the first argument or, without
# one, by SERVICE. The remaining arguments go to the process (memstream import --input ... for cli).
# exec, so node is PID 1 and receives SIGTERM itself (its lifecycle runner drains on it).
set -eu
cd "$(dirname "$0")/.."
service="${1:-${SERVICE:-all-in-one}}"
[ "$#" -gt 0 ] && shift
main="services/$service/src/main.ts"
if [ ! -f "$main" ]; then
  echo "start-service: no service '$service'; one of: $(ls services | tr '\n' ' ')" >&2
  exit 64
fi
exec node --import tsx "$main" "$@"
