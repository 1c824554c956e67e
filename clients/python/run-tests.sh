#!/usr/bin/env bash
# The package's pytest suite in a virtual environment of its own (made on first use, from PyPI,
# and made again when it lacks what the tests import).
# The server tests need MEMSTREAM_URL (and MEMSTREAM_API_KEY, MEMSTREAM_JWT_SECRET when the server
# checks credentials); test/e2e/python-client.test.ts starts the servers and runs this.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import memstream, memstream_kaos, pytest, pytest_asyncio, langchain_openai, mypy' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -e "$here[test]" >&2
fi
cd "$here"
exec "$venv/bin/python" -m pytest "$@"
