#!/bin/sh
# The container's entry point: runs one memstream process, named by the first argument or, without
# one, by SERVICE. The remaining arguments go to the process (memstream import --input ... for cli).
# It runs the JavaScript the image build compiled (npm ci's postinstall: scripts/build/build.js);
# nothing is compiled here and neither tsx nor esbuild is loaded.
# exec, so node is PID 1 and receives SIGTERM itself (its lifecycle runner drains on it).
set -eu
cd "$(dirname "$0")/.."
service="${1:-${SERVICE:-all-in-one}}"
[ "$#" -gt 0 ] && shift
# The API processes are entry points of services/api (scripts/processes.js names them too).
case "$service" in
  ingest-gateway) source=services/api/src/main-gateway.ts ;;
  read-api) source=services/api/src/main-read-api.ts ;;
  *) source="services/$service/src/main.ts" ;;
esac
if [ ! -f "$source" ]; then
  echo "start-service: no service '$service'; one of: ingest-gateway read-api $(ls services | grep -v '^api$' | tr '\n' ' ')" >&2
  exit 64
fi
main="$(echo "$source" | sed 's#/src/#/dist/#; s#\.ts$#.js#')"
if [ ! -f "$main" ]; then
  echo "start-service: $main is missing: compile first (npm run build)" >&2
  exit 70
fi
exec node --conditions=memstream-dist --enable-source-maps "$main" "$@"
