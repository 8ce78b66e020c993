"""The committed hypothesis gold set (bench/data/ei-hypotheses.jsonl) stays true to the parser: every
finding is in the abstract, every hypothesis is its units' text, as the Document reader splits them now."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, shared_path


def _checker() -> Any:
    """The gold-set checker in bench/data (a script, loaded as a module)."""
    spec = importlib.util.spec_from_file_location("check_hypothesis_gold", REPO / "bench" / "data" / "check_hypothesis_gold.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_hypothesis_gold_matches_the_parsed_documents(tmp_path: Path) -> None:
    shared_path("evidence-inference", "validation", "articles")
    mod = _checker()
    path = REPO / "bench" / "data" / "ei-hypotheses.jsonl"
    assert mod.check(path) == []
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 30 and all(r["hypothesis_units"] for r in rows)
    # a damaged copy is caught (a hypothesis that is not its units' text)
    for r in rows[:2]:
        r["doc"] = str((path.parent / r["doc"]).resolve())
    rows[0]["hypothesis"] += " (edited)"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows[:2]), encoding="utf-8")
    errors = mod.check(bad)
    assert len(errors) == 1 and rows[0]["id"] in errors[0]


@pytest.mark.parametrize(("name", "split"), [("ei-hypotheses-heldout.jsonl", "validation"), ("ei-hypotheses-test.jsonl", "train")])
def test_heldout_and_test_hypothesis_gold_match_the_parsed_documents(name: str, split: str) -> None:
    shared_path("evidence-inference", split, "articles")
    path = REPO / "bench" / "data" / name
    assert _checker().check(path) == []
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 30
