"""The shared-data rule: a missing shared-data folder skips a test locally and fails it in CI (CI=true)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO

# a test that needs the shared data (the claim-detection test split, which has no licence to copy it)
NEEDS_SHARED = "tests/test_extract_models.py::test_findings_detector_on_held_out_test_split"


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["CLAIMTRACE_SHARED"] = str(tmp_path / "no-such-folder")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", NEEDS_SHARED],
                          capture_output=True, text=True, cwd=REPO, env=env)


def test_missing_shared_data_skips_locally(tmp_path: Path) -> None:
    res = _run(tmp_path, None)
    assert res.returncode == 0, res.stdout[-2000:]
    assert "1 skipped" in res.stdout and "shared data not available" in res.stdout
    assert str(tmp_path / "no-such-folder" / "data") in res.stdout


def test_missing_shared_data_fails_in_ci(tmp_path: Path) -> None:
    res = _run(tmp_path, "true")
    assert res.returncode == 1, res.stdout[-2000:]
    assert ("1 error" in res.stdout or "1 failed" in res.stdout) and "skipped" not in res.stdout
    assert "CI=true and shared data not available" in res.stdout
