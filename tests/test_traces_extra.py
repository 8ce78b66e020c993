"""The extra Psychological Science traces (``bench/data/traces-extra``): the offsets file rebuilds verbatim
records from the shared TEI, every sha1 holds, and none of its papers is in the 60-paper gold set."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, shared_path

LOADER = REPO / "bench" / "data" / "traces-extra" / "load.py"


def _loader() -> Any:
    spec = importlib.util.spec_from_file_location("traces_extra_load", LOADER)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_extra_traces_rebuild_and_stay_outside_gold() -> None:
    """Every stored location resolves to a string whose sha1 matches, and no paper is a gold paper."""
    data = shared_path()
    mod = _loader()
    recs = mod.load_extra(data.parent)
    assert recs, "no traces in psychsci-extra.jsonl"
    gold = {
        json.loads(x)["paper"] for x in (data / "traces" / "psychsci-dev.jsonl").read_text().splitlines() if x
    }
    for r in recs:
        assert r["paper"] not in gold
        blocks = mod.blocks_of(data.parent, r["paper"])
        assert r["finding"] and r["hypothesis"] and r["evidence"]
        for key in ("hypothesis", "evidence"):
            assert set(r[f"{key}_paragraphs"]) <= set(blocks)
            for s in r[key]:
                assert any(s in blocks[b] for b in r[f"{key}_paragraphs"])
        assert r["confidence"] in ("high", "medium", "low")


def test_tampered_offsets_raise(tmp_path: Path) -> None:
    """A location whose text no longer matches its sha1 is an error, not a silent wrong string."""
    data = shared_path()
    mod = _loader()
    rows = mod.rows_of(mod.OFFSETS)
    row = next(r for r in rows if not r.get("skipped"))
    row["finding"] = {**row["finding"], "start": row["finding"]["start"] + 1}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(row) + "\n")
    with pytest.raises(ValueError, match="sha1 mismatch"):
        mod.load_extra(data.parent, bad)


def test_check_cli_prints_counts() -> None:
    """``load.py --check`` exits 0 and prints the counts as JSON; a wrong shared folder exits 2."""
    data = shared_path()
    out = subprocess.run(
        [sys.executable, str(LOADER), "--check", "--shared", str(data.parent)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["traces"] >= 1
    bad = subprocess.run(
        [sys.executable, str(LOADER), "--check", "--shared", "/nonexistent"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stderr.startswith("error:")
