#!/usr/bin/env bash
# The whole suite: type check, the arrow lint, then every test against a real Kafka, PostgreSQL
# with pgvector and Redis, which this script starts (or takes from KAFKA_BROKERS, DATABASE_URL
# and REDIS_URL when they are set); then the second pass (scripts/tests/partitioned.sh): the unit
# tests, the store's tests and the family contracts once more, on Node 24 in the partitioned
# layout. MEMSTREAM_SKIP_FAULTS=1 leaves out the fault suite (test/faults: minutes of fixed load
# windows) locally; CI does not set it. Tests that need no infrastructure alone: `npm run test:unit`.
set -euo pipefail
cd "$(dirname "$0")/.."

npm run --silent typecheck
npm run --silent lint
node --import tsx scripts/generate-schemas.ts --check
node --import tsx scripts/generate-openapi.ts --check
node --import tsx scripts/generate-store-schema.ts --check
# The service processes tests start run the compiled build (harness/processes.ts): made here once,
# before test files running side by side could each find it stale.
npm run --silent build

envfile=$(bash scripts/infra/up.sh)
# shellcheck disable=SC1090
source "$envfile"

# Node 20's test runner takes no globs: list the files ourselves, or take the ones given as arguments.
if [ "$#" -gt 0 ]; then files=("$@"); else
  # The unit tests first, in a process per core (scripts/tests/test-unit.ts): a process of their
  # own for each of the ~100 files cost about twice the CPU of their tests. `npm run test:unit --
  # --isolated` runs them one process each.
  node --import tsx scripts/tests/test-unit.ts || unit_failed=1
  # Then the files that need infrastructure, the longest first and the rest in name order: two run
  # at once, and a long file started last ran alone at the end (the fault suite and the schema
  # fuzzing took the last 10 minutes). `node --test` would sort them by name again; run-in-order.ts
  # starts them as listed.
  first=(test/faults/faults.test.ts test/e2e/schema-fuzz.test.ts test/e2e/conformance.test.ts
    test/e2e/python-client.test.ts test/e2e/memory-service.test.ts)
  infrastructure=$(node --import tsx scripts/tests/test-files.ts --infrastructure)
  mapfile -t files < <(printf '%s\n' "${first[@]}"
    grep -vxF -f <(printf '%s\n' "${first[@]}") <<<"$infrastructure")
  if [ -n "${MEMSTREAM_SKIP_FAULTS:-}" ]; then
    echo "MEMSTREAM_SKIP_FAULTS is set: the fault suite (test/faults) is left out" >&2
    mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -v '^test/faults/')
  fi
fi
node --import tsx scripts/tests/run-in-order.ts --concurrency 2 "${files[@]}"
if [ -n "${unit_failed:-}" ]; then echo "unit tests failed (see above)" >&2; exit 1; fi
# The second pass, on Node 24 with the tables hash-partitioned by their shard column
# (STORE_LAYOUT=partitioned, docs/store.md), unless files were named.
if [ "$#" -eq 0 ]; then bash scripts/tests/partitioned.sh; fi
