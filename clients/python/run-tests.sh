#!/usr/bin/env bash
# The client's pytest suite in a virtual environment of its own (made on first use, from PyPI).
# The server tests need MEMSTREAM_URL (and MEMSTREAM_API_KEY when the server asks for a key);
# test/e2e/kaos-python-client.test.ts starts a server and runs this.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import memstream_kaos, pytest, pytest_asyncio' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -e "$here[test]" >&2
fi
cd "$here"
exec "$venv/bin/python" -m pytest "$@"
