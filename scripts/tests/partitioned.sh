#!/usr/bin/env bash
# The store's tests and each family's end-to-end contract, embedded and distributed, with the
# store laid out STORE_LAYOUT=partitioned (docs/store.md): every distributed table
# hash-partitioned by its shard column, so PostgreSQL holds the key rules Citus holds. The
# helpers hand the layout to every store they migrate and every process they start. Files given
# as arguments run instead of the default set.
set -euo pipefail
cd "$(dirname "$0")/../.."

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
    test/e2e/kaos.test.ts test/e2e/memory-agent.test.ts)
fi
exec node --import tsx --test --test-concurrency=2 --test-reporter=spec "${files[@]}"
