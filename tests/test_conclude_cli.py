"""``claimtrace conclude``: single question (--json), batch with failures and resume, forest plot, bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO, ei_article

ENV = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_LLM")}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", "conclude", *args], capture_output=True, text=True,
                          cwd=REPO, env=ENV)


def _article(pmcid: str) -> str:
    return str(ei_article(pmcid))


def test_single_question_json_defaults_to_offline_and_says_so() -> None:
    res = run(_article("PMC1087200"), "--intervention", "chloroquine (CQ) and sulphadoxine-pyrimethamine (SP)",
              "--comparator", "artemether in fixed combination with lumefantrine",
              "--outcome", "carring gametocytes within the 4 weeks following treatment", "--higher-is-better", "no",
              "--json")
    assert res.returncode == 0, res.stderr
    assert "method offline (no LLM configured)" in res.stderr
    out = json.loads(res.stdout)
    assert out["schema_version"] and out["method"] == "offline"
    assert out["label"] == "significantly increased" and out["conclusion"] == "favours comparator"
    assert out["polarity_source"] == "user" and out["quotes"][0]["located"]


def _batch_rows(tmp_path: Path) -> Path:
    lines = [
        {"id": "ok1", "docs": [_article("PMC1087200")], "intervention": "chloroquine (CQ) and sulphadoxine-pyrimethamine (SP)",
         "comparator": "artemether in fixed combination with lumefantrine",
         "outcome": "Carriers  harboured gametocytes at densities and time periods"},
        {"id": "ok2", "docs": [_article("PMC1915612")], "intervention": "botulinum toxin (maximum 100 units)",
         "comparator": "placebo (saline)", "outcome": "mean number of neck pain days", "higher_is_better": "no"},
        {"id": "missing", "docs": [str(tmp_path / "nope.nxml")], "intervention": "a", "comparator": "b", "outcome": "c"},
        {"id": "noq", "docs": [_article("PMC1087200")], "intervention": "a", "comparator": "b"},
    ]
    path = tmp_path / "batch.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_batch_records_failures_resumes_and_draws_a_forest_plot(tmp_path: Path) -> None:
    batch = _batch_rows(tmp_path)
    out, png = tmp_path / "out.jsonl", tmp_path / "forest.png"
    res = run("--batch", str(batch), "--out", str(out), "--forest-plot", str(png))
    assert res.returncode == 1  # some items failed
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert set(rows) == {"ok1", "ok2", "missing", "noq"}
    assert rows["ok1"]["label"] == "significantly increased" and rows["ok1"]["error"] is None
    assert rows["ok2"]["label"] == "no significant difference" and rows["ok2"]["conclusion"] == "no difference"
    for r in (rows["ok1"], rows["ok2"]):
        assert {"label", "conclusion", "rationale", "quotes", "schema_version"} <= set(r)
    assert "no such file" in rows["missing"]["error"]
    assert "missing outcome" in rows["noq"]["error"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "forest plot: " in res.stderr
    # resume: finished items are skipped, the failed ones retried (and fail again), nothing duplicated
    res2 = run("--batch", str(batch), "--out", str(out))
    assert "2 already done" in res2.stderr
    ids = [r["id"] for r in map(json.loads, out.read_text().splitlines())]
    assert sorted(ids) == ["missing", "noq", "ok1", "ok2"]


def test_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    art = _article("PMC1087200")
    cases = [
        [art, "--intervention", "a", "--comparator", "b"],                                   # no outcome
        [art, "--intervention", "a", "--comparator", "b", "--outcome", "c", "--method", "magic"],
        [art, "--intervention", "a", "--comparator", "b", "--outcome", "c", "--method", "urca"],  # no LLM
        [art, "--intervention", "a", "--comparator", "b", "--outcome", "c", "--higher-is-better", "maybe"],
        [str(tmp_path / "nope.pdf"), "--intervention", "a", "--comparator", "b", "--outcome", "c"],
        ["--batch", str(tmp_path / "none.jsonl")],
        [art, "--intervention", "a", "--comparator", "b", "--outcome", "c", "--retriever", "magic"],
    ]
    for args in cases:
        res = run(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert res.stderr.strip().splitlines()[-1].startswith("error: ")
        assert "Traceback" not in res.stderr


def test_retriever_choices_are_the_registry() -> None:
    from claimtrace import specs

    res = subprocess.run([sys.executable, "-m", "claimtrace", "conclude", "--help"], capture_output=True, text=True,
                         cwd=REPO, env={**ENV, "COLUMNS": "400", "NO_COLOR": "1"}, check=True)
    flat = re.sub(r"-\s+", "-", " ".join(res.stdout.split()))  # rich wraps at hyphens
    assert all(spelling in flat for spelling in specs.RETRIEVERS.spellings())
    bad = run(_article("PMC1087200"), "--intervention", "a", "--comparator", "b", "--outcome", "c",
              "--retriever", "finetuned")  # a kind that needs its DIR
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        f"error: --retriever: unknown retriever 'finetuned' (expected {specs.RETRIEVERS.expected()})"]
