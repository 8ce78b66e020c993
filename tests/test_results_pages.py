"""The results pages are what bench/results_pages.py writes from the committed result files, and every
number in them has a source; a fast benchmark step reproduces its committed result."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO / "bench"))

import reproduce  # noqa: E402
import results_pages  # noqa: E402


def test_committed_pages_equal_the_generated_ones() -> None:
    problems = results_pages.check()
    assert not problems, "regenerate with `python bench/results_pages.py`:\n" + "\n".join(problems)


def test_every_page_is_marked_generated() -> None:
    for page in results_pages.render():
        text = (REPO / page.path).read_text(encoding="utf-8")
        if page.raw is None:  # a whole generated page
            assert text.startswith(results_pages.GENERATED)
        else:  # a hand-written page: only its marked tables are generated, and they are not empty
            opened = re.findall(r"^<!-- results:\S+ -->$", text, re.M)
            assert len(opened) == len(re.findall(r"^<!-- /results -->$", text, re.M)) >= 1
            assert page.scan


def test_every_results_page_is_generated() -> None:
    """No hand-written page is left in docs/results/ (the experiment runner's summary.md pages are its own)."""
    generated = {Path(p.path).name for p in results_pages.render()}
    assert {f.name for f in (REPO / "docs" / "results").glob("*.md")} <= generated


def test_a_typed_number_is_caught_and_a_sourced_one_is_not() -> None:
    p = results_pages.Page("t", "docs/results/t.md")
    p.add(f"macro-F1 {p.v(0.6508)} on {p.v(233, 'd')} items; `--limit 10` in code; stage 2; rag-k5.")
    assert results_pages.unsourced(p) == []
    p.add("the earlier version scored 0.500 and 0.384")
    bad = results_pages.unsourced(p)
    assert len(bad) == 2 and "'0.500'" in bad[0] and "'0.384'" in bad[1]
    p.add("a difference of +0.390 [+0.305, +0.476]")
    assert len(results_pages.unsourced(p)) == 5


def test_result_files_carry_provenance_and_no_hand_edited_block() -> None:
    for f in sorted((REPO / "bench" / "results").glob("*.json")):
        d = json.loads(f.read_text(encoding="utf-8"))
        prov = d.get("provenance")
        assert prov, f"{f.name}: no provenance block"
        assert prov.get("reconstructed") or {"command", "commit", "data", "machine"} <= set(prov), f.name
    rows = json.loads((REPO / "bench" / "results" / "retrieval_ei.json").read_text())["rows"]
    assert not any("llm" in r for r in rows)  # the block bench/retrieval_eval.py never wrote


def test_volatile_fields_are_ignored_and_results_are_not(tmp_path: Path) -> None:
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"macro_f1": 0.65, "wall_s": 3.0, "provenance": {"commit": "a"}}))
    other = json.dumps({"macro_f1": 0.65, "wall_s": 9.0, "provenance": {"commit": "b"}})
    assert reproduce.stable_view(f) == reproduce.stable_view(f, other)
    assert reproduce.stable_view(f) != reproduce.stable_view(f, json.dumps({"macro_f1": 0.64}))


def test_per_item_predictions_back_the_extract_table() -> None:
    res = json.loads((REPO / "bench" / "results" / "extract_ei.json").read_text())
    with gzip.open(REPO / "bench" / "results" / "extract_ei_items.jsonl.gz", "rt") as fh:
        items = [json.loads(x) for x in fh]
    for row in res["rows"]:
        hits = sum(bool(it[row["system"]]["hit"]) for it in items)
        assert row["items"] == len(items)
        assert abs(hits / len(items) - row["evidence_hit@1"]) < 1e-12


@pytest.mark.skipif(not (SHARED / "data" / "evidence-inference").is_dir(),
                    reason="needs the shared data beside the repository (../shared/data/evidence-inference)")
def test_fast_step_reproduces_its_committed_result(tmp_path: Path) -> None:
    """`bench/conclude_ei.py --limit 10` run again gives the committed result, timings and machine aside."""
    rc = subprocess.run([sys.executable, "bench/conclude_ei.py", "--limit", "10", "--out-dir", str(tmp_path)],
                        cwd=REPO, capture_output=True, text=True)
    assert rc.returncode == 0, rc.stderr[-2000:]
    new = tmp_path / "conclude_ei_offline_10.json"
    committed = (REPO / "bench" / "results" / "conclude_ei_offline_10.json").read_text()
    assert reproduce.stable_view(new) == reproduce.stable_view(new, committed)


def test_every_result_file_is_referenced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file in bench/results/ is named by a docs page or written by a bench/reproduce.py step."""
    assert results_pages.unreferenced_results() == []
    for name in ("stats_score.json", "zz_orphan_probe.json"):  # a step's output, and a file nothing names
        (tmp_path / name).write_text("{}\n")
    monkeypatch.setattr(results_pages, "RES", tmp_path)
    assert results_pages.unreferenced_results() == [
        "bench/results/zz_orphan_probe.json: no docs page names it and no bench/reproduce.py step writes it"]


def test_a_step_with_a_missing_script_or_result_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """bench/reproduce.py steps name scripts and result files that exist (results_pages.py --check enforces it)."""
    assert reproduce.dangling_steps() == []
    monkeypatch.setattr(reproduce, "STEPS", [reproduce.Step("gone", ["bench/zz_gone.py"], ["zz_gone.json"]),
                                             reproduce.Step("ok", ["bench/conclude_ei.py"], ["conclude_ei_offline.json"])])
    assert reproduce.dangling_steps() == [
        "bench/reproduce.py step gone: its script bench/zz_gone.py does not exist",
        "bench/reproduce.py step gone: names bench/results/zz_gone.json, which does not exist"]
