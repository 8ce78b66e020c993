"""`claimtrace evaluate hypothesis|evidence|calibrate`, `experiment-data` and `experiment` end to end
on real Evidence-Inference data (console script, real embedder, real pipeline)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from claimtrace.errors import InputError
from claimtrace.evaluate.datasets import load_score_traces
from conftest import REPO, shared_path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, cwd=REPO)


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def ei_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    split = shared_path("evidence-inference", "validation")
    out = tmp_path_factory.mktemp("ei") / "ei.jsonl"
    res = run("experiment-data", str(split), "--out", str(out), "--limit", "12", "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["items"] == 12 and info["with_evidence_units"] >= 10
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    for r in rows:
        assert r["evidence"] and Path(r["doc"]).exists() and r["finding"]
        assert all(u.startswith("p") for u in r["evidence_units"])
    return rows


def test_evaluate_evidence_and_hypothesis_cli(tmp_path: Path, ei_rows: list[dict]) -> None:
    gold = _write(tmp_path / "gold.jsonl", [{"id": r["id"], "text": r["evidence"]} for r in ei_rows])
    # predictions as `claimtrace extract` rows: half exact, half another item's evidence, one missing
    preds = []
    for i, r in enumerate(ei_rows[:-1]):
        text = r["evidence"] if i % 2 == 0 else ei_rows[(i + 5) % len(ei_rows)]["evidence"]
        preds.append({"id": r["id"], "traces": [{"evidence": {"text": text}, "hypothesis": {"text": text}}]})
    pred = _write(tmp_path / "pred.jsonl", preds)
    res = run("evaluate", "evidence", "--pred", str(pred), "--gold", str(gold), "--json")
    assert res.returncode == 0, res.stderr
    ev = json.loads(res.stdout)
    assert ev["items"] == 12 and ev["missing_predictions"] == 1
    assert 0.3 < ev["f1"] < 0.9 and ev["tp"] > 0 and ev["fp"] > 0 and ev["fn"] > 0
    assert set(ev["components"]) == {"variables", "relationships", "intervals", "test_family", "sample_size"}
    assert ev["tp"] == sum(c["tp"] for c in ev["components"].values())
    res = run("evaluate", "hypothesis", "--pred", str(pred), "--gold", str(gold), "--threshold", "0.75", "--json")
    assert res.returncode == 0, res.stderr
    hy = json.loads(res.stdout)
    assert hy["threshold"] == 0.75 and hy["schema_version"] == "1.0"
    assert 0.3 < hy["precision"] < 0.9 and 0.3 < hy["recall"] < 0.9
    # perfect predictions
    res = run("evaluate", "hypothesis", "--pred", str(gold), "--gold", str(gold), "--json")
    assert json.loads(res.stdout)["f1"] == 1.0


def test_evaluate_bad_input_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "text": "x"}\nnot json\n')
    res = run("evaluate", "evidence", "--pred", str(bad), "--gold", str(bad))
    assert res.returncode == 2 and "line 2: invalid JSON" in res.stderr and "Traceback" not in res.stderr
    res = run("evaluate", "hypothesis", "--pred", str(tmp_path / "none.jsonl"), "--gold", str(bad))
    assert res.returncode == 2 and "no such file" in res.stderr
    ratings = _write(tmp_path / "r.jsonl", [{"predicted": "a", "gold": "b", "rating": 7}])
    res = run("evaluate", "calibrate", "--ratings", str(ratings))
    assert res.returncode == 2 and "rating 7 outside 0-3" in res.stderr


def test_calibrate_cli_on_real_pairs(tmp_path: Path, ei_rows: list[dict]) -> None:
    # two annotators' spans of one prompt (rating 3) vs spans of different prompts (rating 0)
    rated = []
    for i, r in enumerate(ei_rows):
        rated.append({"predicted": r["evidence"], "gold": r["evidence"], "rating": 3})
        rated.append({"predicted": r["evidence"], "gold": ei_rows[(i + 6) % len(ei_rows)]["evidence"], "rating": 0})
    ratings = _write(tmp_path / "ratings.jsonl", rated)
    png = tmp_path / "tau.png"
    res = run("evaluate", "calibrate", "--ratings", str(ratings), "--plot", str(png), "--json")
    assert res.returncode == 0, res.stderr
    cal = json.loads(res.stdout)
    assert cal["n_pairs"] == 24 and cal["n_correct"] == 12 and len(cal["grid"]) == 91
    assert cal["f1"] == 1.0 and 0.1 <= cal["best_tau"] < 0.99
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_experiment_runner_small(tmp_path: Path, ei_rows: list[dict]) -> None:
    data = _write(tmp_path / "items.jsonl", ei_rows[:3])
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"dataset: {data}\noutput: {tmp_path / 'out'}\npresets: [fulltext-zeroshot, rag-k5, oracle]\n")
    res = run("experiment", str(cfg), "--json")
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    table = {e["config"]: e for e in summary["table"]}
    assert set(table) == {"fulltext-zeroshot", "rag-k5", "oracle"}
    assert all(e["items"] == 3 and e["errors"] == 0 for e in table.values())
    assert table["oracle"]["gold_in_context"] == 1.0 and table["fulltext-zeroshot"]["gold_in_context"] == 1.0
    assert table["oracle"]["mean_rsp"] >= table["fulltext-zeroshot"]["mean_rsp"]
    out = tmp_path / "out"
    for f in ("summary.md", "summary.csv", "summary.json", "f1_vs_k.png", "rsp_vs_f1.png", "transitions.png"):
        assert (out / f).exists(), f
    rows = (out / "items" / "rag-k5__embedded.jsonl").read_text().splitlines()
    assert len(rows) == 3
    # resumable: a second run skips everything already done
    res = run("experiment", str(cfg), "--json")
    assert res.returncode == 0 and "0 to run" in res.stderr
    # --report-only runs nothing (the 4th item stays unrun) and the summary says how to reproduce it
    _write(data, ei_rows[:4])
    res = run("experiment", str(cfg), "--report-only", "--json")
    assert res.returncode == 0, res.stderr
    assert all(e["items"] == 3 for e in json.loads(res.stdout)["table"])
    assert len((out / "items" / "rag-k5__embedded.jsonl").read_text().splitlines()) == 3
    assert f"Reproduce: `claimtrace experiment {cfg}`" in (out / "summary.md").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"dataset: {data}\noutput: {tmp_path}\npresets: [nope]\n")
    res = run("experiment", str(bad))
    assert res.returncode == 2 and "unknown preset 'nope'" in res.stderr


def test_experiment_hypothesis_stage_only(tmp_path: Path) -> None:
    # a hypothesis-gold item (no evidence gold): stage 1 only, oracle context = the gold hypothesis paragraph
    paper = REPO / "examples" / "PMC1821024.nxml"
    hyp = ("In this randomised controlled trial we set out to compare individualised exercises whilst immersed in a "
           "heated pool to similar exercises on land for their effect on overall improvement in health, physical "
           "function and quality of life in people with rheumatoid arthritis.")
    finding = ("Significantly more patients treated with hydrotherapy (40/46, 87%) were much better or very much better "
               "than the patients treated with land exercise (19/40, 47.5%), p < 0.001 Fisher's exact test.")
    data = _write(tmp_path / "h.jsonl", [{"id": "h1", "doc": str(paper), "finding": finding, "hypothesis": hyp,
                                          "hypothesis_units": ["p3.s1"]}])
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"dataset: {data}\noutput: {tmp_path / 'out'}\npresets: [rag-k5, oracle]\nstages: [hypothesis]\n")
    res = run("experiment", str(cfg), "--json")
    assert res.returncode == 0, res.stderr
    table = {e["config"]: e for e in json.loads(res.stdout)["table"]}
    assert table["oracle"]["errors"] == 0 and table["oracle"]["gold_in_context"] == 1.0
    assert table["oracle"]["hypothesis_hit_at_1"] == 1.0 and table["oracle"]["hypothesis_f1"] == 1.0
    assert "evidence_f1" not in table["rag-k5"] and table["rag-k5"]["hypothesis_items"] == 1
    row = json.loads((tmp_path / "out" / "items" / "oracle__embedded.jsonl").read_text().splitlines()[0])
    assert row["pred_evidence"] is None and "evidence" not in row  # stage 2 did not run
    md = (tmp_path / "out" / "summary.md").read_text()
    assert "## Hypothesis F1 against τ" in md and "| oracle / embedded |" in md
    assert (tmp_path / "out" / "hypothesis_tau.png").read_bytes()[:4] == b"\x89PNG"
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"dataset: {data}\noutput: {tmp_path}\nstages: [evidnce]\n")
    res = run("experiment", str(bad))
    assert res.returncode == 2 and "stages" in res.stderr and "Traceback" not in res.stderr


# ---- behaviour that mutation testing found no test pinned -----------------------------------

def test_score_traces_keep_their_ids_and_number_the_rest(tmp_path: Path) -> None:
    rows = [{"claim_id": "c7", "claim2": "A finding.", "pdf_filename": "a.pdf"},
            {"claim2": "Another finding.", "pdf_filename": "b.pdf"},
            {"claim_id": "c7", "claim2": "A third.", "pdf_filename": "c.pdf"}]
    path = tmp_path / "score.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    got = load_score_traces(path, docs_dir=tmp_path)
    assert [g["id"] for g in got] == ["c7", "2", "c7#3"]
    assert got[1]["doc"] == str(tmp_path / "b.pdf")
    path.write_text(json.dumps({"claim_id": "c1", "pdf_filename": "a.pdf"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="row 1"):
        load_score_traces(path)


def test_jsonl_errors_name_the_file_and_line(tmp_path: Path) -> None:
    """The one JSON-lines reader: batch manifests, ratings, SCORE traces and graph files report alike."""
    from claimtrace.batch import read_jsonl
    from claimtrace.evaluate.hypothesis import read_ratings
    from claimtrace.graph.model import load_graphs

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "doc": "x.pdf"}\n\n{"id": "b", oops}\n', encoding="utf-8")
    for read in (read_jsonl, read_ratings, load_score_traces, load_graphs):
        with pytest.raises(InputError, match=r"line 3: invalid JSON") as err:
            read(bad)
        assert str(bad) in str(err.value)
    arr = tmp_path / "array.jsonl"
    arr.write_text('{"predicted": "a", "gold": "b", "rating": 3}\n[1, 2]\n', encoding="utf-8")
    for read in (read_ratings, load_score_traces):
        with pytest.raises(InputError, match=r"line 2: expected a JSON object"):
            read(arr)


def test_evaluate_retrieval_pred_line_that_is_not_an_object_is_bad_input(tmp_path: Path) -> None:
    import subprocess
    import sys

    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "a", "doc": "x.nxml", "query": "q", "gold_units": ["p1"]}\n', encoding="utf-8")
    pred = tmp_path / "pred.jsonl"
    pred.write_text("[1, 2]\n", encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "claimtrace", "evaluate", "retrieval", str(gold), "--pred", str(pred)],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.strip() == f"error: {pred}: line 1: expected a JSON object"
