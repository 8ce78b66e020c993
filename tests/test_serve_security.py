"""claimtrace serve refuses what it must, cleanly, and writes nothing when it refuses.

A real server process on loopback over a store built by the real runner; each refusal is checked for
its status, a plain page (no traceback), an unchanged review database and an unchanged results folder.
Also: the review database, Cohen's kappa of two reviewers, and review-export on real decisions.
"""

from __future__ import annotations

import csv
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi", reason="the serve extra is needed: pip install 'claimtrace-sci[serve]'")

from conftest import FIXTURES, REPO
from serve_support import Client, Server, build_store, decision_count, non_loopback_address, snapshot


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("serve-sec"))


@pytest.fixture(scope="module")
def server(results: Path) -> Iterator[Server]:
    s = Server(results, args=("--max-upload-mb", "0.25"))
    yield s
    err = s.stop()
    assert "Traceback" not in err, err


def _ids(results: Path) -> dict[str, str]:
    from claimtrace.corpus.store import Store

    return {Path(r["path"]).name: r["paper_id"] for r in Store(results, create=False).read("papers").to_pylist()}


def _plain(r: httpx.Response, status: int) -> None:
    assert r.status_code == status, (r.status_code, r.text[:500])
    assert "Traceback" not in r.text and 'File "' not in r.text


def _raw_get(port: int, target: str) -> tuple[int, str]:
    """Send the request line exactly as written (no client-side normalisation of ../)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode("utf-8", "replace")


def test_path_traversal_is_refused_and_reads_nothing_outside(server: Server, results: Path) -> None:
    before = snapshot(results)
    secret = (results / "manifest.json").read_text()
    (results.parent / "outside.txt").write_text("outside-the-static-folder")
    for target in ("/static/../../manifest.json", "/static/%2e%2e/%2e%2e/%2e%2e/outside.txt",
                   "/static/..%2f..%2f..%2fmanifest.json", "/static/vendor/htmx/..%2f..%2f..%2f..%2fserve%2fapp.py",
                   "/paper/..%2f..%2fmanifest.json", "/paper/../manifest.json",
                   f"/paper/{'0' * 64}/page/..%2f..%2fmanifest.json.png", "/paper/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
                   "/static/%2e%2e/app.py"):
        status, body = _raw_get(server.port, target)
        assert status in (400, 404), (target, status)
        assert secret[:40] not in body and "outside-the-static-folder" not in body and "root:" not in body, target
        assert "Traceback" not in body
    assert snapshot(results) == before


def test_unknown_paper_and_bad_parameters_get_plain_pages(server: Server) -> None:
    c = Client(server.base)
    _plain(c.http.get("/paper/" + "f" * 64), 404)
    _plain(c.http.get("/paper/not-a-hash"), 404)
    _plain(c.http.get("/corpus", params={"page": "abc"}), 400)
    _plain(c.http.get("/corpus", params={"flag": "nope"}), 400)
    _plain(c.http.get("/corpus", params={"sort": "title; drop table papers"}), 400)
    _plain(c.http.get("/no/such/page"), 404)
    r = c.http.get("/corpus", params={"q": 'memory" OR title:*) NEAR('})  # FTS syntax is never passed through
    _plain(r, 200)


def test_uploads_refused_cleanly_and_nothing_written(server: Server, results: Path, tmp_path: Path) -> None:
    c = Client(server.base, reviewer="sec")
    before, n = snapshot(results), decision_count(results)
    big = (FIXTURES / "paper.pdf").read_bytes()
    big += b"%" + b"x" * (300 * 1024)  # a real PDF made larger than the 0.25 MiB limit
    r = c.post("/quick", params={"name": "big.pdf"}, content=big)
    _plain(r, 413)
    assert "upload limit" in r.json()["error"]
    r = c.post("/quick", params={"name": "fake.pdf"}, content=b"This is a plain text file, not a PDF.\n" * 20)
    _plain(r, 415)
    assert "not a PDF" in r.json()["error"]
    r = c.post("/quick", params={"name": "broken.nxml"},
               content=b'<?xml version="1.0"?><article><front><article-meta><title-group>'
                       b"<article-title>Broken</article-title></front></article>")
    _plain(r, 400)
    assert "malformed XML" in r.json()["error"]
    r = c.post("/quick", params={"name": "script.exe"}, content=b"MZ\x90\x00")
    _plain(r, 415)
    r = c.post("/quick", params={"name": "truncated.pdf"}, content=b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n")
    _plain(r, 400)
    # the HTML page of a refusal (a browser without Accept: application/json)
    r = c.http.post("/quick", params={"name": "fake.pdf"}, content=b"hello", headers={"X-CSRF-Token": c.csrf})
    _plain(r, 415)
    assert "<h1>Error 415</h1>" in r.text
    assert snapshot(results) == before and decision_count(results) == n
    assert not (results / "quick").exists()


def test_cross_site_posts_are_refused_and_write_nothing(server: Server, results: Path) -> None:
    ids = _ids(results)
    pid = ids["PMC1090588.nxml"]
    item = f"{pid[:16]}-t0:hypothesis"
    c = Client(server.base, reviewer="sec")
    before, n = snapshot(results), decision_count(results)
    body = {"item_id": item, "action": "reject"}
    # no CSRF token (what a cross-site HTML form sends: the cookies at most)
    _plain(c.http.post(f"/paper/{pid}/decide", json=body), 403)
    _plain(c.http.post(f"/paper/{pid}/decide", data={"item_id": item, "action": "reject"},
                       headers={"Origin": "http://evil.example"}), 403)
    # the right token but another site's Origin, or a browser saying cross-site
    _plain(c.post(f"/paper/{pid}/decide", json=body, headers={"Origin": "http://evil.example"}), 403)
    _plain(c.post(f"/paper/{pid}/decide", json=body, headers={"Sec-Fetch-Site": "cross-site"}), 403)
    # a token of another session
    other = Client(server.base)
    _plain(c.post(f"/paper/{pid}/decide", json=body, headers={"X-CSRF-Token": other.csrf}), 403)
    _plain(c.post("/reviewer", data={"name": "mallory"}, headers={"X-CSRF-Token": "0" * 64}), 403)
    _plain(c.post("/quick", params={"name": "p.pdf"}, content=(FIXTURES / "paper.pdf").read_bytes(),
                  headers={"Origin": "http://evil.example"}), 403)
    # a Host that is not this server (DNS rebinding)
    _plain(c.http.get("/", headers={"Host": "evil.example"}), 400)
    assert snapshot(results) == before and decision_count(results) == n
    # the same request from the page itself is accepted
    r = c.post(f"/paper/{pid}/decide", json=body, headers={"Origin": server.base})
    assert r.status_code == 200, r.text
    assert decision_count(results) == n + 1


def test_bad_decisions_are_refused(server: Server, results: Path) -> None:
    pid = _ids(results)["PMC1090588.nxml"]
    n = decision_count(results)
    anon = Client(server.base)
    _plain(anon.decide(pid, f"{pid[:16]}-t0:evidence", "accept"), 400)  # no reviewer name yet
    c = Client(server.base, reviewer="sec")
    _plain(c.decide(pid, f"{pid[:16]}-t0:evidence", "approve"), 400)
    _plain(c.decide(pid, "someone-else-t0:evidence", "accept"), 400)
    _plain(c.decide(pid, f"{pid[:16]}-t99:evidence", "accept"), 400)
    _plain(c.decide(pid, f"{pid[:16]}-t0:hypothesis", "correct", {"scope": "body", "start": 10, "end": 40,
                                                                   "text": "words that are not there at all"}), 400)
    _plain(c.decide(pid, f"{pid[:16]}-s0", "correct", {"test": "t", "value": "big", "df1": 3}), 400)
    _plain(c.decide(pid, f"{pid[:16]}-s0", "correct", {"test": "t", "value": 2, "p_value": 3}), 400)
    _plain(c.post(f"/paper/{pid}/decide", content=b"not json", headers={"Content-Type": "application/json"}), 400)
    assert decision_count(results) == n


def test_non_loopback_bind_needs_the_token(results: Path) -> None:
    addr = non_loopback_address()
    if addr is None:
        pytest.skip("this machine has no non-loopback address to bind")
    s = Server(results, host=addr)  # no --token: one is generated and printed
    try:
        token = s.token
        assert token and len(token) >= 16 and f"?token={token}" in s.info["url"]
        before, n = snapshot(results), decision_count(results)
        for path in ("/", "/corpus", "/static/app.js", "/agreement"):
            _plain(httpx.get(s.base + path), 401)
            _plain(httpx.get(s.base + path, params={"token": "wrong-token-123"}), 401)
        pid = _ids(results)["paper.pdf"]
        _plain(httpx.post(f"{s.base}/paper/{pid}/decide", json={"item_id": f"{pid[:16]}-t0:finding",
                                                                 "action": "accept"}), 401)
        _plain(httpx.post(f"{s.base}/quick", params={"name": "p.pdf"}, content=(FIXTURES / "paper.pdf").read_bytes()), 401)
        assert snapshot(results) == before and decision_count(results) == n
        # with the token once in the URL, the cookie carries it afterwards; a bearer header works too
        with httpx.Client(base_url=s.base) as h:
            assert h.get("/", params={"token": token}).status_code == 200
            assert h.get("/corpus").status_code == 200
        assert httpx.get(s.base + "/corpus", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        c = Client(s.base, reviewer="remote", token=token)
        assert c.decide(pid, f"{pid[:16]}-t0:finding", "accept").status_code == 200
    finally:
        err = s.stop()
    assert "token generated" in err and "Traceback" not in err


def test_review_database_kappa_and_export(server: Server, results: Path, tmp_path: Path) -> None:
    """Two reviewers on one paper: decisions with history, kappa per element type, the export's rows."""
    from claimtrace.serve.review import ReviewDB, agreement

    pid = _ids(results)["PMC1821024.nxml"]
    p16 = pid[:16]
    a, b = Client(server.base, reviewer="Ann"), Client(server.base, reviewer="Ben")
    plan = {  # item: (Ann, Ben)
        f"{p16}-t0:finding": ("accept", "accept"), f"{p16}-t1:finding": ("accept", "reject"),
        f"{p16}-t2:finding": ("reject", "reject"), f"{p16}-t0:evidence": ("accept", "accept"),
        f"{p16}-t1:evidence": ("reject", "accept"), f"{p16}-t2:evidence": ("not_reported", "not_reported"),
    }
    assert a.decide(pid, f"{p16}-t1:finding", "reject").status_code == 200  # changed below: history
    for item, (da, db) in plan.items():
        assert a.decide(pid, item, da).status_code == 200
        assert b.decide(pid, item, db).status_code == 200
    db = ReviewDB(results / "review.sqlite")
    try:
        mine = [d for d in db.current(pid) if d.reviewer in ("Ann", "Ben")]
        hist = [d for d in db.history(pid) if d.reviewer == "Ann" and d.item_id == f"{p16}-t1:finding"]
    finally:
        db.close()
    assert len(mine) == 12 and [d.action for d in hist] == ["reject", "accept"]
    from sklearn.metrics import cohen_kappa_score

    ag = {(g.element, g.reviewer_a, g.reviewer_b): g for g in agreement(mine)}
    f = ag[("finding", "Ann", "Ben")]
    assert f.n_items == 3 and f.kappa == round(cohen_kappa_score(["accept", "accept", "reject"],
                                                                 ["accept", "reject", "reject"]), 4)
    e = ag[("evidence", "Ann", "Ben")]
    assert e.n_items == 3 and e.kappa == round(cohen_kappa_score(["accept", "reject", "not_reported"],
                                                                 ["accept", "accept", "not_reported"]), 4)
    page = a.http.get("/agreement").text
    assert f"{f.kappa:.3f}" in page and f"{e.kappa:.3f}" in page
    # export: current rows, and every row with --history
    out = tmp_path / "review.csv"
    res = subprocess.run([sys.executable, "-m", "claimtrace", "review-export", str(results), "--format", "csv",
                          "--out", str(out), "--json"], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    rows = [r for r in csv.DictReader(out.open()) if r["paper_id"] == pid]
    assert summary["rows"] >= 12 and len(rows) == 12
    r = next(r for r in rows if r["reviewer"] == "Ann" and r["item_id"] == f"{p16}-t1:finding")
    assert r["action"] == "accept" and r["n_history"] == "2" and r["schema_version"] == "1.0"
    assert r["machine_text"] and r["reviewed_text"] == r["machine_text"] and r["decided_at"].endswith("Z")
    assert r["path"].endswith("PMC1821024.nxml")
    rej = next(r for r in rows if r["reviewer"] == "Ann" and r["item_id"] == f"{p16}-t2:finding")
    assert rej["action"] == "reject" and rej["reviewed_text"] == ""
    res = subprocess.run([sys.executable, "-m", "claimtrace", "review-export", str(results), "--format", "jsonl",
                          "--history"], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert len([x for x in lines if x["paper_id"] == pid]) == 13


def test_review_export_bad_input(tmp_path: Path, results: Path) -> None:
    env = {"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "claimtrace", "review-export", *args], capture_output=True,
                              text=True, cwd=REPO, env=env)

    for args in ([str(tmp_path / "missing")], [str(FIXTURES / "paper.pdf")], [str(tmp_path)],
                 [str(results), "--format", "xlsx"], [str(results), "--json"],
                 [str(results), "--out", str(tmp_path)]):
        res = run(*args)
        assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, (args, res.stderr)
        assert res.stderr.startswith("error: ") and "Traceback" not in res.stderr
