"""The local engine's write path: workers write the step tables, the parent commits the papers rows only.

A SIGKILL between a worker's write and the parent's commit leaves rows that no committed paper owns: the
next run removes them and recomputes those papers; a commit rewrites only the parts it supersedes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq

from claimtrace.corpus.runner import discover, run_corpus
from claimtrace.corpus.schema import TABLE_NAMES
from claimtrace.corpus.store import Store
from claimtrace.corpus.work import CorpusItem, PaperTask, RunSettings, chunks
from conftest import REPO, shared_path
from test_corpus_run import ENV, cli


def _tasks(n: int) -> list[PaperTask]:
    return [PaperTask(item=CorpusItem(path=f"p{i}"), paper_id=f"{i:064x}", steps=["parse"], keys={}) for i in range(n)]


def test_guided_chunks_cover_every_task_once_and_shrink_to_one() -> None:
    for n, workers, most in ((1, 2, 16), (7, 2, 16), (1037, 2, 16), (80, 1, 3), (500, 8, 32)):
        cs = chunks(_tasks(n), workers, most)
        flat = [t.paper_id for c in cs for t in c]
        assert flat == [t.paper_id for t in _tasks(n)]  # in order, each once
        sizes = [len(c) for c in cs]
        assert max(sizes) <= most and sizes[-1] == 1
        assert sizes == sorted(sizes, reverse=True)
    assert len(chunks(_tasks(1037), 2)) < 1037 // 4  # far fewer chunks (and part files) than papers


def test_workers_write_the_step_tables_and_counts_match(tmp_path: Path) -> None:
    arts = sorted(shared_path("evidence-inference", "train", "articles").glob("*.nxml"))[:24]
    listfile = tmp_path / "c.txt"
    listfile.write_text("".join(f"{a}\n" for a in arts))
    out = tmp_path / "run"
    s = run_corpus(discover(str(listfile)), out, RunSettings(), workers=2, batch_size=8)
    assert s.computed == 24 and len(s.worker_peak_rss_mb) == 2
    store = Store(out, create=False)
    # the step tables' parts are the workers' (named <run>-w<chunk>), the papers parts the parent's batches
    for t in ("traces", "statistics"):
        names = [p.name for p in store.parts(t)]
        assert names and all("-w" in n for n in names), names
    assert not any("-w" in p.name for p in store.parts("papers"))
    papers = store.read("papers").to_pylist()
    for table in ("traces", "statistics"):
        rows = store.read(table).to_pylist()
        assert len({(r["paper_id"], r[f"{'trace' if table == 'traces' else 'stat'}_index"]) for r in rows}) == len(rows)
        per = {p["paper_id"]: 0 for p in papers}
        for r in rows:
            per[r["paper_id"]] += 1
        assert per == {p["paper_id"]: p[f"n_{table}"] for p in papers}, table
    # the same rows as a run whose workers send every row back to one writer (the Ray engine's path)
    inline = tmp_path / "one"
    s1 = run_corpus(discover(str(listfile)), inline, RunSettings(), workers=1, batch_size=100)
    assert s1.computed == 24
    for t in TABLE_NAMES:
        assert Store(inline, create=False).result_rows(t) == store.result_rows(t), t


def test_sigkill_after_workers_wrote_before_the_commit(tmp_path: Path) -> None:
    arts = sorted(shared_path("evidence-inference", "train", "articles").glob("*.nxml"))[:60]
    listfile = tmp_path / "corpus.txt"
    listfile.write_text("".join(f"{a}\n" for a in arts))
    out = tmp_path / "run"
    # one batch for the whole run: the parent commits nothing until the end, the worker writes every chunk
    proc = subprocess.Popen([sys.executable, "-m", "claimtrace", "run", str(listfile), "--out", str(out),
                             "--workers", "1", "--batch-size", "10000"], cwd=REPO, env=ENV, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and len(list((out / "traces").glob("part-*.parquet"))) < 2:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for t in TABLE_NAMES:  # every file there is a complete Parquet file
        for part in (out / t).glob("*.parquet"):
            pq.read_table(part)
    orphans = Store(out, create=False).read("traces").num_rows
    assert orphans > 0 and Store(out, create=False).read("papers").num_rows == 0, "kill between write and commit"
    res = cli("run", str(listfile), "--out", str(out), "--workers", "1", "--json")
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["computed"] == len(arts) and summary["skipped"] == 0  # nothing was committed: all redone
    assert summary["removed_invalid_rows"].get("traces") == orphans  # the uncommitted rows were removed first
    store = Store(out, create=False)
    papers = store.read("papers").to_pylist()
    assert len(papers) == len({p["paper_id"] for p in papers}) == len(arts)
    for table, key in (("traces", "trace_index"), ("statistics", "stat_index")):
        rows = store.read(table).to_pylist()
        assert len({(r["paper_id"], r[key]) for r in rows}) == len(rows), table
        assert sum(p[f"n_{table}"] for p in papers) == len(rows), table


def test_commit_rewrites_only_the_parts_it_supersedes(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")

    def paper(pid: str, bid: str) -> dict[str, object]:
        return {"paper_id": pid, "path": pid, "status": "ok", "steps": [], "batch_id": bid}

    def error(pid: str, bid: str) -> dict[str, object]:
        return {"paper_id": pid, "path": pid, "step": "parse", "error_type": "X", "message": "m", "batch_id": bid}

    store.commit("b1", [paper("a", "b1"), paper("b", "b1")], {}, [error("b", "b1")], superseded={})
    store.commit("b2", [paper("c", "b2")], {}, [error("c", "b2")], superseded={})
    untouched = {t: (store.root / t / "part-b2.parquet").stat().st_mtime_ns for t in ("papers", "errors")}
    time.sleep(0.01)
    store.commit("b3", [paper("b", "b3")], {}, [], superseded={"b": "b1"})
    assert sorted((r["paper_id"], r["batch_id"]) for r in store.read("papers").to_pylist()) == [
        ("a", "b1"), ("b", "b3"), ("c", "b2")]
    assert [(r["paper_id"], r["batch_id"]) for r in store.read("errors").to_pylist()] == [("c", "b2")]
    assert not (store.root / "errors" / "part-b1.parquet").exists()  # its only row was b's old attempt
    assert {t: (store.root / t / "part-b2.parquet").stat().st_mtime_ns for t in ("papers", "errors")} == untouched
    assert store.vacuum() == {t: 0 for t in TABLE_NAMES}  # nothing stale was left behind
