"""The package's type information: mypy --strict passes on it, and sees each method answer its
model on Memstream and an awaitable (or async iterator) of it on AsyncMemstream."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_mypy_strict_accepts_the_package_and_sees_the_types_each_client_answers():
    cache = HERE.parent / ".venv" / "mypy-cache"
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), str(HERE.parent / "src" / "memstream"), str(HERE / "typing_sample.py")],
        capture_output=True, text=True, cwd=HERE.parent,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success" in run.stdout
