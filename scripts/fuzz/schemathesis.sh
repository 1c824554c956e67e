#!/usr/bin/env bash
# Schemathesis (the OpenAPI property-based fuzzer) from PyPI, in a virtual environment of its own
# under .cache; made once, then reused. Prints the path of its `st` command.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=4.32.5
venv=".cache/schemathesis-$version"
if [ ! -x "$venv/bin/st" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis==$version" >&2
fi
echo "$PWD/$venv/bin/st"
