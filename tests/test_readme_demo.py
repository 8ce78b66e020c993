"""The README's "What `make demo` prints" block is current: ``scripts/readme_demo.py --check`` reruns the demo."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO

SCRIPT = REPO / "scripts" / "readme_demo.py"


def _check(repo: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_LLM")}
    return subprocess.run([sys.executable, str(repo / "scripts" / "readme_demo.py"), "--check"], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=600)


def test_readme_demo_block_is_current() -> None:
    res = _check(REPO)
    assert res.returncode == 0, res.stderr
    assert "current" in res.stdout


def test_check_fails_when_the_demo_output_changes(tmp_path: Path) -> None:
    """A README whose demo block differs from a real run in its count of flags is reported stale (exit 1)."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "readme_demo.py").write_bytes(SCRIPT.read_bytes())
    for name in ("src", "examples"):
        (tmp_path / name).symlink_to(REPO / name)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    summary = re.search(r"\d+ results found, \d+ checked, (\d+) inconsistent", readme)
    assert summary and int(summary.group(1)) >= 1, "the demo block shows no flag"
    stale = summary.group(0).replace(f"{summary.group(1)} inconsistent", f"{int(summary.group(1)) - 1} inconsistent")
    (tmp_path / "README.md").write_text(readme.replace(summary.group(0), stale), encoding="utf-8")
    res = _check(tmp_path)
    assert res.returncode == 1
    assert "out of date" in res.stderr
