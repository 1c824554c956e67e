#!/usr/bin/env bash
# The suite's second pass, which `npm test` runs after the main one: the parts a second runtime
# or a second layout of the store breaks, run once for both.
#  - On Node 24 (scripts/tests/node24.sh): every unit test, then the files below. What a new
#    runtime breaks is the test runner, tsx, onnxruntime's N-API module and child processes,
#    without running the fault suite's fixed load windows twice.
#  - With the store laid out STORE_LAYOUT=partitioned (docs/store.md): every distributed table
#    hash-partitioned by its shard column, so PostgreSQL holds the key rules Citus holds. The
#    helpers hand the layout to every store they migrate and every process they start.
# The files: the store's tests, each family's end-to-end contract (embedded mode), the compiled
# start and authentication. Files given as arguments run instead of them.
# MEMSTREAM_SECOND_PASS_NODE=current keeps the Node on the PATH. The embedded crash test
# (test/e2e/embedded-crash.test.ts) runs in the main pass only: what it kills and restarts is the
# process group and its journal, the same in both layouts, and that a replayed write lands once in
# the partitioned tables is the store's tests' (append-retry-in-batch.test.ts and others); here it
# cost two minutes of CI's time.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "${MEMSTREAM_SECOND_PASS_NODE:-24}" = 24 ]; then
  # shellcheck source=scripts/tests/node24.sh
  source scripts/tests/node24.sh
fi
if [ "$#" -eq 0 ]; then node --import tsx scripts/tests/test-unit.ts; fi

export STORE_LAYOUT=partitioned
# The strict layout: no distributed table is blocked any more (libs/store/test/distribution.test.ts),
# so none may stay plain. STORE_LAYOUT_KEEP_PLAIN (a comma list) still lets named tables stay
# plain while a new table's keys are being fixed.

envfile=$(bash scripts/infra/up.sh)
# shellcheck disable=SC1090
source "$envfile"

if [ "$#" -gt 0 ]; then files=("$@"); else
  # append-plan.test.ts pins the plain layout's plan of the append (which index, nothing read
  # whole); the partitioned layout's plan is held by single-partition.test.ts instead
  mapfile -t files < <(find libs/store/test -name '*.test.ts' -not -name append-plan.test.ts | sort)
  files+=(test/e2e/evermemos-api.test.ts test/e2e/ark-api.test.ts test/e2e/memory-service.test.ts
    test/e2e/kaos.test.ts test/e2e/memory-agent.test.ts test/compiled-start.test.ts
    test/e2e/authentication.test.ts)
fi
# The distributed-mode tests are left out here: the main pass runs them, the processes they start
# run the same store statements as the embedded mode on the same PostgreSQL, and starting those
# processes is most of this pass's time. Node 20 has no --test-skip-pattern: there they run.
skip=()
if node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)'; then
  skip=(--test-skip-pattern='^distributed mode')
fi
exec node --import tsx --test --test-concurrency=2 --test-reporter=spec "${skip[@]}" "${files[@]}"
