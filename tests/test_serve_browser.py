"""The review app in a real browser: Playwright driving Debian's chromium (headless) against a real
``claimtrace serve`` process on loopback, over a store built by the real runner from real papers.

The eight flows of issue 16, in order (they build on each other's decisions, so the module runs them
in sequence on one server): filter the corpus by a flag; see the highlights of a PDF and a JATS paper;
correct a hypothesis by selecting text; reject and accept evidence; edit a statistic; reload and find
every decision; export; quick-check an uploaded PDF. Plus a cross-site form post from another origin.
"""

from __future__ import annotations

import csv
import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is needed: pip install 'claimtrace-sci[serve]'")

from conftest import REPO
from serve_support import Server, build_store, chromium_path, decision_count, free_port, snapshot

REVIEWER = "Rita Reviewer"
EVIL_ORIGINS: list[str] = []  # the cross-site test's own attacker page (not a request of the app's pages)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("serve-browser"))


@pytest.fixture(scope="module")
def server(results: Path) -> Iterator[Server]:
    s = Server(results)
    yield s
    err = s.stop()
    assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    exe = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def page(browser: Any, server: Server) -> Iterator[Any]:
    """One browser tab for the whole module: the reviewer name is set once (a cookie), as a person does."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    external: list[str] = []
    ctx.on("request", lambda req: external.append(req.url) if not req.url.startswith(server.base) else None)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    pg.goto(server.base + "/")
    pg.fill("#reviewer-name", REVIEWER)
    with pg.expect_navigation():
        pg.click("#reviewer-form button")
    assert pg.input_value("#reviewer-name") == REVIEWER
    yield pg
    ctx.close()
    # no CDN, no third party: every request the app's pages made went to the server itself
    assert not [u for u in external if not u.startswith(("data:", "about:", "blob:", *EVIL_ORIGINS))], external


def _ids(results: Path) -> dict[str, str]:
    from claimtrace.corpus.store import Store

    return {Path(r["path"]).name: r["paper_id"] for r in Store(results, create=False).read("papers").to_pylist()}


def _current(results: Path) -> dict[str, Any]:
    from claimtrace.serve.review import ReviewDB

    db = ReviewDB(results / "review.sqlite")
    try:
        return {d.item_id: d for d in db.current() if d.reviewer == REVIEWER}
    finally:
        db.close()


def test_1_corpus_page_filter_by_flag(page: Any, server: Server, results: Path) -> None:
    from playwright.sync_api import expect

    from claimtrace.corpus.query import query

    page.goto(server.base + "/corpus")
    assert page.locator("tr.paper-row").count() == 3
    flagged = {r["paper_id"] for r in query(results, "select distinct paper_id from statistics where consistent = false")
               .to_pylist()}
    assert 0 < len(flagged) < 3  # the filter must leave some papers out
    page.select_option("#flag", "inconsistent")
    expect(page.locator("tr.paper-row")).to_have_count(len(flagged))
    shown = {r.get_attribute("data-paper") for r in page.locator("tr.paper-row").all()}
    assert shown == flagged
    assert all(page.locator(f'tr[data-paper="{p}"] .flag-inconsistent').count() == 1 for p in flagged)
    assert "flag=inconsistent" in page.url  # the filter is in the URL (htmx pushes it)
    page.select_option("#flag", "")
    page.fill("#q", "hydrotherapy")
    expect(page.locator("tr.paper-row")).to_have_count(1)
    assert "hydrotherapy" in page.locator("tr.paper-row .title").inner_text().lower()


def _see_highlights(page: Any, trace: int = 0) -> dict[str, Any]:
    seen = {}
    for el in ("finding", "hypothesis", "evidence"):
        dom = f"t{trace}-{el}"
        page.click(f'.element[data-dom="{dom}"] .el-text')
        marks = page.locator(f'#paper-view [data-els~="{dom}"].active')
        assert marks.count() > 0, dom
        first = marks.first
        assert first.is_visible()
        assert page.locator(f'.element[data-dom="{dom}"]').get_attribute("class").split().count("active") == 1
        # its own colour: the highlight's class names its kind
        assert f"-{el}" in (first.get_attribute("class") or "")
        seen[el] = first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert len(set(seen.values())) == 3, seen  # three different colours
    return seen


def test_2_pdf_and_jats_papers_show_highlights(page: Any, server: Server, results: Path) -> None:
    ids = _ids(results)
    page.goto(f"{server.base}/paper/{ids['paper.pdf']}")
    assert page.locator(".pdf-page img").count() == 2
    page.wait_for_load_state("load")
    assert page.evaluate("() => document.querySelector('.pdf-page img').naturalWidth") > 500
    for el in ("finding", "hypothesis", "evidence"):  # boxes on the rendered pages, inside the page
        box = page.locator(f'.pdf-page .box-{el}[data-els~="t0-{el}"]').first
        assert box.count() == 1
        b, pg = box.bounding_box(), box.locator("xpath=..").bounding_box()
        assert pg["x"] <= b["x"] and b["x"] + b["width"] <= pg["x"] + pg["width"] + 1 and b["height"] > 3
    page.click('.element[data-dom="t0-evidence"] .el-text')
    assert page.locator('.pdf-page .box[data-els~="t0-evidence"].active').count() >= 1
    # the PDF's evidence box is on page 2, where the store says the evidence is
    from claimtrace.corpus.query import query

    ev_page = query(results, f"select evidence_page from traces where paper_id = '{ids['paper.pdf']}' "
                             "and trace_index = 0").to_pylist()[0]["evidence_page"]
    assert page.locator(f'#page-{ev_page} .box[data-els~="t0-evidence"]').count() >= 1
    page.goto(f"{server.base}/paper/{ids['PMC1090588.nxml']}")
    assert page.locator(".abstract .para").count() > 0 and page.locator(".body-section .para").count() > 5
    _see_highlights(page)
    assert page.locator(".graph").count() == 1  # the relation graph as SVG (graphs step)
    assert page.locator(".graph line").count() >= 1 and page.locator(".graph circle").count() >= 2
    from claimtrace.corpus.query import query as q

    label = q(results, f"select label from conclusions where paper_id = '{ids['PMC1090588.nxml']}'").to_pylist()
    assert len(label) == 1 and label[0]["label"] in page.locator(".conclusion").inner_text()


def _drag_select(page: Any, paragraph_id: str, needle: str) -> None:
    """Select ``needle`` in a paragraph with the mouse: press before its first letter, release after its last."""
    rects = page.evaluate("""([pid, needle]) => {
        const p = document.getElementById('u-' + pid);
        p.scrollIntoView({block: 'center'});
        const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
        let node, pos = 0, at = p.textContent.indexOf(needle), start = null, end = null;
        while ((node = walker.nextNode())) {
            const len = node.data.length;
            if (start === null && at < pos + len) start = [node, at - pos];
            if (end === null && at + needle.length <= pos + len) { end = [node, at + needle.length - pos]; break; }
            pos += len;
        }
        const first = document.createRange(); first.setStart(start[0], start[1]); first.setEnd(start[0], start[1] + 1);
        const last = document.createRange(); last.setStart(end[0], end[1] - 1); last.setEnd(end[0], end[1]);
        const a = first.getBoundingClientRect(), b = last.getBoundingClientRect();
        return [a.left, a.top + a.height / 2, b.right, b.top + b.height / 2];
    }""", [paragraph_id, needle])
    x0, y0, x1, y1 = rects
    page.mouse.move(x0 + 0.5, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1 - 0.5, y1, steps=4)
    page.mouse.up()


def test_3_correct_a_hypothesis_by_selecting_text(page: Any, server: Server, results: Path) -> None:
    from claimtrace.documents import load_document

    pid = _ids(results)["PMC1090588.nxml"]
    doc = load_document(results.parent / "papers" / "PMC1090588.nxml")
    par = doc.paragraphs[5]
    sent = par.sentences[0]
    page.goto(f"{server.base}/paper/{pid}")
    _drag_select(page, par.id, sent.text)  # with the mouse, as a person does
    assert page.evaluate("() => window.getSelection().toString()") == sent.text
    with page.expect_navigation():  # the page reloads to draw the corrected span
        page.click('.element[data-dom="t0-hypothesis"] button[data-action="correct-span"]')
    d = _current(results)[f"{pid[:16]}-t0:hypothesis"]
    assert d.action == "correct" and d.reviewer == REVIEWER
    assert (d.value["scope"], d.value["start"], d.value["end"]) == ("body", sent.start, sent.end)
    assert d.value["text"] == sent.text and d.value["sentence_ids"] == [sent.id]
    assert d.machine["text"] and d.machine["text"] != sent.text  # the machine value is kept beside it
    card = page.locator('.element[data-dom="t0-hypothesis"]')
    assert sent.text[:40] in card.locator(".el-corrected").inner_text()
    assert page.locator(f'#u-{par.id} .hl-corrected[data-els~="t0-hypothesis"]').count() >= 1


def test_4_reject_one_evidence_accept_another(page: Any, server: Server, results: Path) -> None:
    pid = _ids(results)["PMC1090588.nxml"]
    page.goto(f"{server.base}/paper/{pid}")
    page.click('.element[data-dom="t0-evidence"] button[data-action="reject"]')
    page.wait_for_selector('.element[data-dom="t0-evidence"] .state-reject')
    # the keyboard: focus the next trace's evidence with j, accept with a
    page.click('.element[data-dom="t1-hypothesis"] .el-text')
    page.keyboard.press("j")
    assert page.locator('.element.active').get_attribute("data-dom") == "t1-evidence"
    page.keyboard.press("a")
    page.wait_for_selector('.element[data-dom="t1-evidence"] .state-accept')
    cur = _current(results)
    assert cur[f"{pid[:16]}-t0:evidence"].action == "reject"
    assert cur[f"{pid[:16]}-t1:evidence"].action == "accept"


def test_5_edit_a_statistic(page: Any, server: Server, results: Path) -> None:
    from claimtrace.stats import compute_p

    pid = _ids(results)["paper.pdf"]
    page.goto(f"{server.base}/paper/{pid}")
    stat = page.locator(".el-statistic").first
    item = stat.get_attribute("data-item")
    stat.locator('button[data-action="edit-stat"]').click()
    form = stat.locator("form.stat-edit")
    assert form.is_visible()
    assert form.locator('input[name="test"]').input_value() == "t"
    form.locator('input[name="df1"]').fill("40")
    form.locator('input[name="value"]').fill("2.10")
    form.locator('input[name="p_value"]').fill("0.042")
    with page.expect_navigation():
        form.locator('button[type="submit"]').click()
    d = _current(results)[item]
    assert d.action == "correct"
    assert (d.value["test"], d.value["df1"], d.value["value"], d.value["p_value"]) == ("t", 40.0, 2.1, 0.042)
    assert d.value["computed_p"] == pytest.approx(compute_p("t", 2.1, 40, None))
    assert d.machine["value"] == 2.7 and d.machine["df1"] == 38  # the machine's numbers, unchanged
    assert "t(40) = 2.1" in page.locator(f'.element[data-item="{item}"] .el-corrected').inner_text()


def test_6_reload_keeps_every_decision(page: Any, server: Server, results: Path) -> None:
    ids = _ids(results)
    jats, pdf = ids["PMC1090588.nxml"], ids["paper.pdf"]
    page.goto(f"{server.base}/paper/{jats}")
    page.reload()
    states = {dom: page.locator(f'.element[data-dom="{dom}"] .state').get_attribute("class")
              for dom in ("t0-hypothesis", "t0-evidence", "t1-evidence", "t0-finding")}
    assert "state-correct" in states["t0-hypothesis"] and "state-reject" in states["t0-evidence"]
    assert "state-accept" in states["t1-evidence"] and "state-none" in states["t0-finding"]
    assert REVIEWER in page.locator('.element[data-dom="t0-evidence"] .state').inner_text()
    page.goto(f"{server.base}/paper/{pdf}")
    assert "state-correct" in page.locator(".el-statistic").first.locator(".state").get_attribute("class")
    page.goto(f"{server.base}/corpus?review=in_progress")
    assert {r.get_attribute("data-paper") for r in page.locator("tr.paper-row").all()} == {jats}


def test_7_export_has_machine_and_reviewed_values(server: Server, results: Path, tmp_path: Path) -> None:
    ids = _ids(results)
    out = tmp_path / "reviewed.csv"
    res = subprocess.run([sys.executable, "-m", "claimtrace", "review-export", str(results), "--format", "csv",
                          "--out", str(out)], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    rows = {r["item_id"]: r for r in csv.DictReader(out.open()) if r["reviewer"] == REVIEWER}
    j, p = ids["PMC1090588.nxml"][:16], ids["paper.pdf"][:16]
    assert len(rows) == 4
    h = rows[f"{j}-t0:hypothesis"]
    assert h["action"] == "correct" and h["element"] == "hypothesis" and h["machine_text"] and h["reviewed_text"]
    assert h["machine_text"] != h["reviewed_text"] and int(h["reviewed_end"]) > int(h["reviewed_start"])
    assert rows[f"{j}-t0:evidence"]["action"] == "reject" and rows[f"{j}-t0:evidence"]["reviewed_text"] == ""
    acc = rows[f"{j}-t1:evidence"]
    assert acc["action"] == "accept" and acc["reviewed_text"] == acc["machine_text"] != ""
    st = rows[f"{p}-s0"]
    assert json.loads(st["machine_json"])["value"] == 2.7 and json.loads(st["reviewed_json"])["value"] == 2.1
    assert all(r["decided_at"].endswith("Z") and r["path"] for r in rows.values())


def test_8_quick_check_upload_a_pdf(page: Any, server: Server, results: Path, tmp_path: Path) -> None:
    from pdf_maker import write_paper_pdf

    pdf = write_paper_pdf(
        tmp_path / "upload.pdf", title="Caffeine and reaction time in a quick check",
        abstract=("We tested whether caffeine shortens reaction times. Reaction times were shorter after caffeine, "
                  "t(30) = 2.45, p = .020, in thirty-two adults."),
        paragraphs=["We expected that a single dose of caffeine would shorten simple reaction times in adults. "
                    "Reaction times were shorter after caffeine than after placebo, t(30) = 2.45, p = .020. "
                    "Errors did not differ, t(30) = 0.80, p = .43."], abstract_heading=True, pages=1)
    page.goto(server.base + "/")
    page.set_input_files("#quick-file", str(pdf))
    page.wait_for_url(f"{server.base}/paper/*", timeout=60_000)
    assert "Caffeine and reaction time" in page.locator("h1").inner_text()
    assert page.locator(".pdf-page img").count() == 1
    assert page.locator(".trace-card").count() >= 1 and page.locator(".el-statistic").count() >= 2
    pid = page.url.rsplit("/", 1)[1]
    assert (results / "quick" / pid / "manifest.json").is_file()
    assert (results / "quick" / pid / "source" / "upload.pdf").read_bytes() == pdf.read_bytes()
    page.goto(server.base + "/")
    assert page.locator(".quick-list a").first.get_attribute("href") == f"/paper/{pid}"


def test_cross_site_form_post_from_another_origin(page: Any, server: Server, results: Path, tmp_path: Path) -> None:
    """A page on another origin auto-submits a form to the server: refused, nothing written."""
    pid = _ids(results)["PMC1090588.nxml"]
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "index.html").write_text(
        f'<form id="f" method="post" action="{server.base}/paper/{pid}/decide" enctype="text/plain">'
        f'<input name=\'{{"item_id": "{pid[:16]}-t2:evidence", "action": "reject", "x": "\' value=\'"}}\'></form>'
        f'<form id="g" method="post" action="{server.base}/reviewer"><input name="name" value="mallory"></form>'
        "<script>document.getElementById(location.hash === '#g' ? 'g' : 'f').submit()</script>")
    port = free_port()
    EVIL_ORIGINS.append(f"http://127.0.0.1:{port}/")
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(evil))  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        before, n = snapshot(results), decision_count(results)
        for frag in ("", "#g"):
            with page.expect_navigation(url=f"{server.base}/**"):
                page.goto(f"http://127.0.0.1:{port}/index.html{frag}")
            assert "Error 403" in page.content()
        assert snapshot(results) == before and decision_count(results) == n
        page.goto(server.base + "/")
        assert page.input_value("#reviewer-name") == REVIEWER  # the name was not changed either
    finally:
        httpd.shutdown()
