#!/usr/bin/env bash
# Installs Schemathesis into a virtual environment under .cache (once) and prints the path of its
# `st` command. pip takes the index and proxy from the machine's own configuration; no registry is
# named here.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=4.32.5
venv=.cache/schemathesis
if ! "$venv/bin/st" --version 2>/dev/null | grep -q "$version"; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" >&2
fi
echo "$PWD/$venv/bin/st"
