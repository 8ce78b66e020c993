"""The review app shows a paper's screening checks and records accept / dismiss on each (real server, real store)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimtrace.serve.review import ReviewDB
from conftest import shared_path
from serve_support import Client, Server

PAPERS = ("09567976211052476.xml", "0956797618815482.xml")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from claimtrace.corpus.runner import run_corpus
    from claimtrace.corpus.work import CorpusItem, RunSettings, Worker

    folder = tmp_path_factory.mktemp("serve-checks")
    items = []
    for name in PAPERS:
        shutil.copy(shared_path("documents", "psychsci", name), folder / name)
        items.append(CorpusItem(path=str(folder / name)))
    settings = RunSettings(steps=["parse", "stats", "checks"])
    summary = run_corpus(items, folder / "results", settings, workers=1, worker=Worker(settings))
    assert summary.ok == len(PAPERS), summary
    return folder / "results"


@pytest.fixture(scope="module")
def server(results: Path) -> Iterator[Server]:
    srv = Server(results)
    yield srv
    srv.stop()


def test_paper_page_lists_checks_and_records_decisions(results: Path, server: Server) -> None:
    from claimtrace.corpus.query import query

    rows = query(results, "select paper_id, check_index, check_id, message from checks "
                          "where severity in ('warn', 'error') order by paper_id, check_index").to_pylist()
    assert rows, "these papers have flags (imprecise p, a t test with no effect size)"
    pid = rows[0]["paper_id"]
    c = Client(server.base, reviewer="ana", token=server.token)
    page = c.http.get(f"/paper/{pid}")
    assert page.status_code == 200
    for r in (r for r in rows if r["paper_id"] == pid):
        item = f"{pid[:16]}-c{r['check_index']}"
        assert f'data-item="{item}"' in page.text and r["check_id"] in page.text
    item = f"{pid[:16]}-c{rows[0]['check_index']}"
    ok = c.decide(pid, item, "dismiss")
    assert ok.status_code == 200, ok.text
    assert ok.json()["element"] == "check" and ok.json()["machine"]["check_id"] == rows[0]["check_id"]
    assert c.decide(pid, item, "accept").status_code == 200
    bad = c.decide(pid, item, "reject")
    assert bad.status_code == 400 and "accepted or dismissed" in bad.text
    assert c.decide(pid, f"{pid[:16]}-c9999", "accept").status_code == 400
    page = c.http.get(f"/paper/{pid}")
    assert "accept by ana" in page.text
    db = ReviewDB(results / "review.sqlite")
    try:
        hist = [d.action for d in db.history(pid) if d.item_id == item]
        assert hist == ["dismiss", "accept"]
        assert [d.action for d in db.current(pid) if d.item_id == item] == ["accept"]
    finally:
        db.close()


def test_a_first_schema_review_db_is_upgraded_with_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "review.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, paper_id TEXT NOT NULL, item_id TEXT NOT NULL,
            element TEXT NOT NULL CHECK (element IN ('finding', 'hypothesis', 'evidence', 'statistic')),
            trace_id TEXT, action TEXT NOT NULL CHECK (action IN ('accept', 'reject', 'correct', 'not_reported')),
            value_json TEXT, machine_json TEXT NOT NULL, reviewer TEXT NOT NULL, decided_at TEXT NOT NULL,
            settings_key TEXT);
        CREATE INDEX decisions_paper ON decisions (paper_id);
        CREATE INDEX decisions_item ON decisions (item_id, reviewer, id);
        CREATE VIEW current_decisions AS SELECT d.* FROM decisions d WHERE d.id = (SELECT max(e.id) FROM decisions e
            WHERE e.item_id = d.item_id AND e.reviewer = d.reviewer);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO decisions (paper_id, item_id, element, action, machine_json, reviewer, decided_at)
            VALUES ('p', 'p-s0', 'statistic', 'reject', '{}', 'bo', '2026-01-01T00:00:00Z');
        """)
    con.close()
    from claimtrace.serve.review import Decision

    db = ReviewDB(path)
    try:
        assert [(d.item_id, d.action) for d in db.current()] == [("p-s0", "reject")]
        db.record(Decision(paper_id="p", item_id="p-c0", element="check", action="dismiss", reviewer="bo"))
        assert {d.item_id: d.action for d in db.current()} == {"p-s0": "reject", "p-c0": "dismiss"}
    finally:
        db.close()
    names = {r[0] for r in sqlite3.connect(path).execute("select name from sqlite_master")}
    assert {"decisions", "decisions_paper", "decisions_item", "current_decisions"} <= names
    assert "decisions_v1" not in names


def test_keyboard_r_and_x_dismiss_a_check_row_in_the_browser(results: Path, server: Server) -> None:
    """The review keys on a check row: r and x dismiss it (they used to send reject / not_reported: a 400)."""
    from claimtrace.corpus.query import query
    from serve_support import chromium_path

    exe = chromium_path()
    from playwright.sync_api import sync_playwright

    rows = query(results, "select paper_id, check_index from checks where severity in ('warn', 'error') "
                          "order by paper_id desc, check_index").to_pylist()
    pid, a, b = rows[0]["paper_id"], rows[0]["check_index"], rows[1]["check_index"]
    assert rows[1]["paper_id"] == pid
    with sync_playwright() as p:
        br = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        pg = br.new_context().new_page()
        pg.set_default_timeout(30_000)
        pg.goto(server.base + "/")
        pg.fill("#reviewer-name", "Kim Keys")
        with pg.expect_navigation():
            pg.click("#reviewer-form button")
        pg.goto(f"{server.base}/paper/{pid}")
        for idx, key in ((a, "r"), (b, "x")):
            pg.click(f'.element[data-dom="c{idx}"] .el-text')
            pg.keyboard.press(key)
            pg.wait_for_selector(f'.element[data-dom="c{idx}"] .state-dismiss')
        br.close()
    db = ReviewDB(results / "review.sqlite")
    try:
        cur = {d.item_id: d.action for d in db.current(pid) if d.reviewer == "Kim Keys"}
    finally:
        db.close()
    assert cur == {f"{pid[:16]}-c{a}": "dismiss", f"{pid[:16]}-c{b}": "dismiss"}
