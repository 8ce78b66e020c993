"""The checks step of a corpus run and ``claimtrace report``: a real run on three psychsci papers."""

from __future__ import annotations

import json
import shutil
from itertools import pairwise
from pathlib import Path

import duckdb
import pytest

from claimtrace.checks import registered_checks
from conftest import shared_path
from test_corpus_run import cli

PAPERS = ("09567976211052476.xml", "09567976211001317.xml", "0956797618815482.xml")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = tmp_path_factory.mktemp("corpus")
    for name in PAPERS:
        shutil.copy(shared_path("documents", "psychsci", name), corpus / name)
    out = tmp_path_factory.mktemp("results") / "run"
    res = cli("run", str(corpus), "--out", str(out), "--steps", "stats,checks", "--workers", "2", "--json")
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["steps_computed"]["checks"] == 3
    return out


def _sql(store: Path, sql: str) -> list[tuple]:
    return duckdb.sql(sql.replace("{s}", str(store))).fetchall()


def test_checks_table_matches_the_check_command(store: Path) -> None:
    """Each paper's rows in the checks table are the rows `claimtrace check --json` gives for it."""
    counts = dict(_sql(store, "select paper_id, n_checks from '{s}/papers/*.parquet'"))
    assert len(counts) == 3
    ids = {c.id for c in registered_checks()}
    for pid, n in counts.items():
        rows = _sql(store, f"select check_id, severity, message, guidance, unit_id, data_json from "
                           f"'{{s}}/checks/*.parquet' where paper_id = '{pid}' order by check_index")
        assert len(rows) == n
        assert {r[0] for r in rows} <= ids
        assert all(isinstance(json.loads(r[5]), dict) for r in rows)
        path = _sql(store, f"select path from '{{s}}/papers/*.parquet' where paper_id = '{pid}'")[0][0]
        res = cli("check", path, "--json")
        assert res.returncode == 0, res.stderr
        want = [(r["check"], r["severity"], r["message"], r["guidance"],
                 (r.get("location") or {}).get("unit_id")) for r in json.loads(res.stdout)["rows"]]
        assert [r[:5] for r in rows] == want
    flagged = _sql(store, "select count(*) from '{s}/checks/*.parquet' where severity in ('warn', 'error')")[0][0]
    assert flagged > 0  # these papers have imprecise p-values, a p without a test, a t test with no effect size


def test_rerun_skips_done_checks(store: Path) -> None:
    res = cli("run", str(Path(_sql(store, "select path from '{s}/papers/*.parquet'")[0][0]).parent), "--out",
              str(store), "--steps", "stats,checks", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["skipped"] == 3


def test_report_rates_and_p_curve(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "rep"
    res = cli("report", str(store), "--out", str(out), "--json")
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    assert rep["schema_version"] and rep["papers"] == rep["papers_checked"] == 3
    assert json.loads((out / "report.json").read_text()) == rep
    by_id = {c["check_id"]: c for c in rep["checks"]}
    for cid, n in _sql(store, "select check_id, count(distinct paper_id) from '{s}/checks/*.parquet' "
                              "where severity in ('warn', 'error') group by all"):
        assert by_id[cid]["flagged"]["papers"] == n
        lo, hi = by_id[cid]["flagged"]["ci95"]
        assert lo <= n / 3 <= hi
    sig = sorted(p for (p,) in _sql(store, "select computed_p from '{s}/statistics/*.parquet' "
                                           "where kind = 'test' and computed_p < 0.05"))
    assert rep["p_curve_n"] == len(sig) > 0
    edges = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05)
    want = [sum(lo <= p < hi for p in sig) for lo, hi in pairwise(edges)]
    assert [b["count"] for b in rep["p_curve"]] == want
    exact = _sql(store, "select count(*) from '{s}/statistics/*.parquet' where p_comparison = '='")[0][0]
    assert rep["p_values"] == exact == sum(b["count"] for b in rep["p_histogram"])
    for name in ("p_histogram.png", "p_curve.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = cli("report", str(store), "--out", str(tmp_path / "md"))
    assert md.returncode == 0 and "| `imprecise_p` |" in md.stdout and "![p-curve](p_curve.png)" in md.stdout
    assert (tmp_path / "md" / "report.md").read_text() == md.stdout


def test_report_on_a_folder_that_is_not_a_store(tmp_path: Path) -> None:
    res = cli("report", str(tmp_path))
    assert res.returncode == 2
    assert "not a claimtrace results folder" in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
