"""The console script: one-line errors and exit status 2 for bad input."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, cwd=REPO)


def test_version() -> None:
    res = run("--version")
    assert res.returncode == 0
    assert res.stdout.startswith("claimtrace ")


def test_missing_file_is_one_line_exit_2(tmp_path) -> None:
    res = run("parse", str(tmp_path / "nope.pdf"))
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0
    assert "no such file" in res.stderr
    assert "Traceback" not in res.stderr
