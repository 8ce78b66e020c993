"""The committed hypothesis gold set (bench/data/ei-hypotheses.jsonl) stays true to the parser: every
finding is in the abstract, every hypothesis is its units' text, as the Document reader splits them now."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from conftest import REPO, shared_path


def test_hypothesis_gold_matches_the_parsed_documents(tmp_path: Path) -> None:
    shared_path("evidence-inference", "validation", "articles")
    spec = importlib.util.spec_from_file_location("check_hypothesis_gold", REPO / "bench" / "data" / "check_hypothesis_gold.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
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


def test_heldout_hypothesis_gold_matches_the_parsed_documents() -> None:
    shared_path("evidence-inference", "validation", "articles")
    spec = importlib.util.spec_from_file_location("check_hypothesis_gold", REPO / "bench" / "data" / "check_hypothesis_gold.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path = REPO / "bench" / "data" / "ei-hypotheses-heldout.jsonl"
    assert mod.check(path) == []
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 30


def test_test_hypothesis_gold_matches_the_parsed_documents() -> None:
    shared_path("evidence-inference", "train", "articles")
    spec = importlib.util.spec_from_file_location("check_hypothesis_gold", REPO / "bench" / "data" / "check_hypothesis_gold.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path = REPO / "bench" / "data" / "ei-hypotheses-test.jsonl"
    assert mod.check(path) == []
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 30
