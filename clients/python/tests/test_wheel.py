"""The distribution pip builds from this folder carries both packages and the type marker."""

import subprocess
import sys
import zipfile
from pathlib import Path


def test_the_wheel_holds_memstream_with_py_typed_and_the_kaos_drop_in(tmp_path):
    project = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check", "-w", str(tmp_path), str(project)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    (wheel,) = tmp_path.glob("memstream-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"memstream/py.typed", "memstream/__init__.py", "memstream/langchain.py", "memstream_kaos/__init__.py"} <= names
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Requires-Dist: httpx" in metadata and "Requires-Dist: pydantic" in metadata
    assert 'extra == "langchain"' in metadata
