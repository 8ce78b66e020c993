"""Shared by the serve tests: a results store built by the real runner, a real server process, a client.

The store holds real papers: the two example JATS papers (PMC1090588, PMC1821024) and the project's
PDF (tests/fixtures/paper.pdf), run through ``claimtrace.corpus.runner.run_corpus`` with the embedded
defaults (steps parse, stats, traces, graphs, and conclusions for PMC1090588 with a question). The server is the real ``claimtrace serve`` command in a subprocess on a free port.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import FIXTURES, REPO, in_ci

PAPERS = [REPO / "examples" / "PMC1090588.nxml", REPO / "examples" / "PMC1821024.nxml", FIXTURES / "paper.pdf"]


def build_store(folder: Path) -> Path:
    """Copy the papers into ``folder/papers`` and run them into ``folder/results`` with the real runner."""
    from claimtrace.corpus.runner import run_corpus
    from claimtrace.corpus.work import CorpusItem, RunSettings, Worker

    papers = folder / "papers"
    papers.mkdir(parents=True)
    items = []
    question = {"PMC1090588.nxml": {"intervention": "anodal tDCS", "comparator": "sham tDCS", "outcome": "reaction time"}}
    for p in PAPERS:
        shutil.copy(p, papers / p.name)
        items.append(CorpusItem(path=str(papers / p.name), **question.get(p.name, {})))
    out = folder / "results"
    settings = RunSettings(steps=["parse", "stats", "traces", "graphs", "conclusions"])
    summary = run_corpus(items, out, settings, workers=1, worker=Worker(settings))
    assert summary.ok == len(PAPERS), summary
    return out


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def non_loopback_address() -> str | None:
    """This machine's non-loopback IPv4 address (no packet is sent), or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            addr = str(s.getsockname()[0])
    except OSError:
        return None
    return None if addr.startswith("127.") or addr == "0.0.0.0" else addr


class Server:
    """``claimtrace serve`` in a subprocess; ``url`` is its address (with the token when it has one)."""

    def __init__(self, results: Path, *, host: str = "127.0.0.1", args: tuple[str, ...] = ()) -> None:
        """Start the server and wait until it answers."""
        self.host = host
        self.port = free_port(host)
        env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "CLAIMTRACE_LOG_LEVEL": "WARNING"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "claimtrace", "serve", str(results), "--host", host, "--port", str(self.port),
             "--json", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
        lines = []
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            lines.append(line)
            if line.startswith("}"):
                break
        if not lines:
            raise RuntimeError(f"claimtrace serve did not start: {self.proc.stderr.read() if self.proc.stderr else ''}")
        self.info: dict[str, Any] = json.loads("".join(lines))
        self.base = f"http://{host}:{self.port}"
        self.token: str | None = self.info.get("token")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(self.base + "/static/app.css", timeout=2)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("claimtrace serve did not answer within 60 s")

    def stop(self) -> str:
        """Stop the server; returns what it wrote on stderr."""
        self.proc.terminate()
        try:
            _out, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _out, err = self.proc.communicate()
        return err or ""


class Client:
    """An HTTP client that behaves like the pages: session cookie, CSRF header, reviewer cookie."""

    def __init__(self, base: str, reviewer: str | None = None, token: str | None = None) -> None:
        """Open a session on the server (GET / for the cookie and the CSRF token)."""
        self.http = httpx.Client(base_url=base, timeout=60, params={"token": token} if token else None)
        r = self.http.get("/")
        assert r.status_code == 200, r.text
        m = re.search(r'name="csrf-token" content="([0-9a-f]+)"', r.text)
        assert m, "no CSRF token in the page"
        self.csrf = m.group(1)
        if reviewer:
            r = self.post("/reviewer", data={"name": reviewer})
            assert r.status_code == 200, r.text

    def post(self, path: str, **kw: Any) -> httpx.Response:
        """POST as the pages do (the CSRF header, the server's own Origin)."""
        headers = {"X-CSRF-Token": self.csrf, "Accept": "application/json", **kw.pop("headers", {})}
        return self.http.post(path, headers=headers, **kw)

    def decide(self, paper_id: str, item: str, action: str, value: dict[str, Any] | None = None) -> httpx.Response:
        """Record a decision."""
        return self.post(f"/paper/{paper_id}/decide", json={"item_id": item, "action": action, "value": value})


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and mtime (SQLite's shared-memory index excluded: reads touch it)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.name.endswith("-shm"):
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


def decision_count(results: Path) -> int:
    """Rows in the review database."""
    import sqlite3

    con = sqlite3.connect(results / "review.sqlite")
    try:
        return int(con.execute("SELECT count(*) FROM decisions").fetchone()[0])
    finally:
        con.close()


def chromium_path() -> str:
    """Debian's chromium (``apt-get install chromium``; .ci/run installs it); skip (fail in CI) without it."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright  # noqa: F401
    except ImportError:
        path = None
    if not path:
        msg = "Debian's chromium and playwright are needed (apt-get install -y chromium; pip install playwright)"
        if in_ci():
            pytest.fail(f"CI=true and {msg}", pytrace=False)
        pytest.skip(msg)
    return path
