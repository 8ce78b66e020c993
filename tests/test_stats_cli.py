"""``claimtrace stats``: table, --json records, stdin, --batch, bad input (real papers)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO, ei_article, shared_path


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", "stats", *args], capture_output=True, text=True,
                          cwd=REPO, input=stdin)


FIELDS = {"text", "start", "end", "test", "df1", "df2", "value", "p_comparison", "p_value", "ci_level", "ci_low",
          "ci_high", "se", "n", "computed_p", "consistent", "decision_error", "significant", "scope", "unit_id"}


def test_stdin_json_offsets_refer_to_stdin() -> None:
    text = "We found t(30) = \u22122.10, p = .044 and OR 2.1 (95% CI 1.2\u20133.4, p = 0.31).\n"
    res = run("-", "--json", stdin=text)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["schema_version"] and out["summary"]["results"] == 2
    recs = out["results"]
    assert set(recs[0]) >= FIELDS
    for r in recs:
        assert text[r["start"] : r["end"]] == r["text"]
    assert recs[0]["value"] == -2.1 and recs[0]["consistent"] is True
    assert recs[1]["test"] == "OR" and recs[1]["ci_p_consistent"] is False


def test_pdf_table_and_summary() -> None:
    pdf = shared_path("statistics", "statcheck-test-papers", "Paper1.pdf")
    res = run(str(pdf))
    assert res.returncode == 0, res.stderr
    assert "4 results found" in res.stdout and "decision" in res.stdout


def test_jats_json_units_and_alpha() -> None:
    path = ei_article("PMC1087200")
    res = run(str(path), "--json", "--alpha", "0.01")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["alpha"] == 0.01
    scopes = {r["scope"] for r in out["results"]}
    assert scopes == {"abstract", "body"}
    assert all(r["unit_id"] for r in out["results"])


def test_batch_records_failures_and_resumes(tmp_path) -> None:
    good = shared_path("statistics", "statcheck-test-papers", "Paper3.htm")
    manifest = tmp_path / "in.jsonl"
    manifest.write_text(json.dumps({"id": "a", "doc": str(good)}) + "\n"
                        + json.dumps({"id": "b", "doc": str(tmp_path / "missing.pdf")}) + "\n")
    out = tmp_path / "out.jsonl"
    res = run("--batch", str(manifest), "--out", str(out))
    assert res.returncode == 1
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["a"]["error"] is None and len(rows["a"]["results"]) == 4 and rows["a"]["schema_version"]
    assert "no such file" in rows["b"]["error"]
    res = run("--batch", str(manifest), "--out", str(out))
    assert "1 already done" in res.stderr
    assert len(out.read_text().splitlines()) == 2


def test_bad_input_one_line_exit_2(tmp_path) -> None:
    for args, stdin in ((["/nonexistent.pdf"], None), (["-"], "  \n"), (["-", "--alpha", "2"], "t(3) = 1, p = .3")):
        res = run(*args, stdin=stdin)
        assert res.returncode == 2, (args, res.stderr)
        assert res.stderr.startswith("error: ") and res.stderr.strip().count("\n") == 0
        assert "Traceback" not in res.stderr


def test_terminal_table_prints_95_percent_ci(capsys: pytest.CaptureFixture[str]) -> None:
    from claimtrace.cli.stats import compact_result
    from claimtrace.stats import analyze
    from claimtrace.stats.model import DocumentStat

    res = [DocumentStat(**r.model_dump(), scope="text")
           for r in analyze("The effect was significant, t(20) = 2.5, p = .02, 95% CI [0.1, 0.9].")]
    cell = compact_result(res[0])
    assert "95% CI [0.1, 0.9]" in cell and "9500%" not in cell
