"""The review app's parts without a browser, over a store built by the real runner: the corpus index (flags,
search, sort, paging in SQL), the highlight segments, the PDF highlight boxes, the upload check."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES
from serve_support import build_store


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("serve-unit"))


def test_corpus_index_pages_sorts_filters_and_searches(results: Path, tmp_path: Path) -> None:
    from claimtrace.corpus.query import query
    from claimtrace.serve.index import CorpusIndex, CorpusQuery
    from claimtrace.serve.review import ReviewDB

    ReviewDB(tmp_path / "r.sqlite").close()
    ix = CorpusIndex(results, tmp_path / "r.sqlite")
    titles = sorted((r["title"] or "").lower() for r in query(results, "select title from papers").to_pylist())
    got = []
    for page in (1, 2, 3):
        res = ix.page(CorpusQuery(page=page), page_size=1)
        assert res.total == 3 and res.pages == 3 and len(res.rows) == 1
        got.append(res.rows[0]["title"].lower())
    assert got == titles
    assert ix.page(CorpusQuery(page=99), page_size=1).page == 3  # past the end: the last page
    by_results = ix.page(CorpusQuery(sort="results", order="desc")).rows
    n_stats = [r["n_statistics"] for r in by_results]
    assert n_stats == sorted(n_stats, reverse=True)
    expect = {r["paper_id"]: r["n"] for r in query(
        results, "select paper_id, count(*) n from statistics where consistent = false group by paper_id").to_pylist()}
    flagged = ix.page(CorpusQuery(flag="inconsistent")).rows
    assert {r["paper_id"]: r["n_inconsistent"] for r in flagged} == expect
    hits = ix.page(CorpusQuery(q="hydrotherapy")).rows
    assert len(hits) == 1 and "hydrotherapy" in hits[0]["title"].lower()
    assert ix.page(CorpusQuery(q="transcranial stimulat")).total == 1  # words ANDed, prefixes match
    assert ix.page(CorpusQuery(q='") OR * NEAR(')).total == 0  # FTS syntax is searched as words, never run
    assert ix.page(CorpusQuery(q='")(* -')).total == 3  # no words: no filter
    assert ix.page(CorpusQuery(review="unreviewed")).total == 3


def test_segments_cut_at_every_span_edge() -> None:
    from claimtrace.serve.paper import segments

    segs = segments("abcdefghij", 100, [(102, 106, "t0-hypothesis", "hypothesis"), (104, 108, "s1", "statistic")])
    assert [s["text"] for s in segs] == ["ab", "cd", "ef", "gh", "ij"]
    assert [s["els"] for s in segs] == ["", "t0-hypothesis", "t0-hypothesis s1", "s1", ""]
    assert "".join(s["text"] for s in segs) == "abcdefghij"


def test_pdf_boxes_cover_the_sentence_on_its_page() -> None:
    from claimtrace.documents import load_document
    from claimtrace.serve.pdfpages import find_text_boxes, page_sizes

    pdf = FIXTURES / "paper.pdf"
    doc = load_document(pdf)
    sent = doc.abstract[0].sentences[-1]
    (boxes,) = find_text_boxes(pdf, [(sent.page or 1, sent.text)])
    assert len(boxes) == 2  # the sentence runs over two lines
    w, h = page_sizes(pdf)[0]
    for b in boxes:
        assert 0 <= b.x0 < b.x1 <= w and 0 <= b.top < b.bottom <= h
    assert find_text_boxes(pdf, [(1, "no such sentence anywhere in this paper")]) == [[]]


def test_upload_check_uses_the_readers(tmp_path: Path) -> None:
    from claimtrace.errors import InputError
    from claimtrace.serve.quick import check_upload

    doc = check_upload("paper.pdf", (FIXTURES / "paper.pdf").read_bytes(), 10_000_000)
    assert doc.source.format == "pdf" and doc.title
    for name, data, reason in (("x.pdf", b"plain text " * 10, "not a PDF"), ("x.docx", b"PK\x03\x04", "unsupported"),
                               ("x.nxml", b"<article><body><p>open</article>", "malformed XML"),
                               ("big.pdf", b"%PDF-" + b"x" * 2000, "upload limit")):
        with pytest.raises(InputError, match=reason):
            check_upload(name, data, 1000)
    assert not list(tmp_path.iterdir())


def test_conclusion_with_forest_plot_on_the_paper_page(tmp_path: Path) -> None:
    """A real EI paper whose offline conclusion has an estimate with a CI: its page shows the forest plot."""
    import httpx

    from claimtrace.corpus.runner import run_corpus
    from claimtrace.corpus.work import CorpusItem, RunSettings, Worker
    from conftest import shared_path
    from serve_support import Server

    pytest.importorskip("fastapi", reason="the serve extra is needed")
    paper = shared_path("evidence-inference", "validation", "articles", "PMC1915612.nxml")
    settings = RunSettings(steps=["parse", "stats", "traces", "conclusions"])
    item = CorpusItem(path=str(paper), intervention="botulinum toxin (maximum 100 units)",
                      comparator="placebo (saline)", outcome="neck pain intensity")
    out = tmp_path / "results"
    assert run_corpus([item], out, settings, workers=1, worker=Worker(settings)).ok == 1
    s = Server(out)
    try:
        from claimtrace.corpus.store import Store

        pid = next(iter(Store(out, create=False).papers()))
        html = httpx.get(f"{s.base}/paper/{pid}", timeout=120).text
        assert 'class="conclusion"' in html and f"/paper/{pid}/forest/0.png" in html
        r = httpx.get(f"{s.base}/paper/{pid}/forest/0.png", timeout=120)
        assert r.status_code == 200 and r.headers["content-type"] == "image/png" and r.content[:4] == b"\x89PNG"
        assert httpx.get(f"{s.base}/paper/{pid}/forest/1.png", timeout=60).status_code == 404
    finally:
        assert "Traceback" not in s.stop()


def test_serve_without_the_extra_is_one_line(results: Path) -> None:
    """Without fastapi (blocked here), `claimtrace serve` names the extra in one line and exits 2."""
    import subprocess
    import sys

    from conftest import REPO

    code = ("import sys; sys.modules['fastapi'] = None\n"
            "from claimtrace.cli import main\n"
            f"sys.argv = ['claimtrace', 'serve', {str(results)!r}]\n"
            "main()\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 2 and res.stderr.strip().splitlines() == [
        "error: claimtrace serve needs the optional dependency 'fastapi': pip install 'claimtrace-sci[serve]'"]
