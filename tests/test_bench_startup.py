"""bench/startup.py: pyperf times the three start-up commands in fresh processes and the result keeps its fields."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_startup_bench_writes_a_median_per_command_from_pyperf(tmp_path: Path) -> None:
    out = tmp_path / "startup.json"
    res = subprocess.run([sys.executable, str(REPO / "bench" / "startup.py"), "--runs", "1", "--quiet",
                          "--out", str(out), "--pyperf", str(tmp_path / "pyperf.json")],
                         capture_output=True, text=True, cwd=REPO, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    d = json.loads(out.read_text())
    assert d["harness"].startswith("pyperf ")
    assert set(d["results"]) == {"help", "stats_one_page", "import"}
    for row in d["results"].values():
        assert len(row["runs_s"]) == 1 and row["median_s"] == row["runs_s"][0] > 0
        assert row["meets_target"] == (row["median_s"] <= row["target_s"])
    suite = json.loads((tmp_path / "pyperf.json").read_text())
    names = {b["metadata"]["name"] for b in suite["benchmarks"]}
    assert names == {"help:this", "stats_one_page:this", "import:this"}
