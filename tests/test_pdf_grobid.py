"""``--pdf-reader grobid``: a real HTTP server on loopback plays GROBID and answers with a recorded TEI.

The always-run test makes a PDF (tests/pdf_maker.py) and a TEI with GROBID's coordinates for it, the
boxes taken from pdfium's own character boxes (not from claimtrace's reader); the shared-data test
serves a real GROBID TEI of a real PDF (``pdf-twins``, ``s2orc-doc2json``). Never the internet.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from claimtrace.documents import Document, ReaderSettings, load_document, use_reader_settings
from claimtrace.documents.readers.grobid import GrobidError
from conftest import REPO, shared_path
from pdf_maker import body_paragraph, write_paper_pdf
from test_cli_matrix import invoke


@dataclass
class FakeGrobid:
    """What the loopback server answers, and what it was sent."""

    tei: bytes = b""
    statuses: list[int] = field(default_factory=list)  # answered first, one per request (then 200)
    requests: list[dict[str, object]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def grobid() -> Iterator[FakeGrobid]:
    state = FakeGrobid()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            msg = BytesParser(policy=HTTP).parsebytes(
                f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + body)
            form: dict[str, list[object]] = {}
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                form.setdefault(str(name), []).append(part.get_payload(decode=True))
            state.requests.append({"path": self.path, "form": form})
            status = state.statuses.pop(0) if state.statuses else 200
            payload = state.tei if status == 200 else b"<html><body>[GENERAL] An exception occurred</body></html>"
            self.send_response(status)
            if status == 503:
                self.send_header("Retry-After", "0")
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """The console-script entry point in-process: (exit status, stdout, stderr)."""
    capsys.readouterr()  # what came before (matplotlib's font logs while a PDF was made) is not the command's
    return invoke(argv, capsys, monkeypatch)


# ---- a PDF of our own and a TEI with coordinates for it ------------------------------------------


ABSTRACT = "We test whether a GROBID server can read this paper. It can, t(28) = 2.20, p = .036."
STAT = " The two groups differed, t(41) = 3.05, p = .004."


def _paragraphs() -> list[str]:
    return [body_paragraph(i) + (STAT if i == 2 else "") for i in range(1, 9)]


def _char_boxes(pdf: Path, texts: list[str]) -> list[list[tuple[int, float, float, float, float]]]:
    """For each text, its line boxes (page, x, y, w, h; top-left origin) from pdfium's character boxes."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    chars: list[tuple[int, int, str]] = []  # page, char index, char (spaces left out)
    pages = []
    for pno in range(len(doc)):
        tp = doc[pno].get_textpage()
        pages.append((tp, doc[pno].get_size()[1]))
        text = tp.get_text_range()
        for i, ch in enumerate(text):
            if not ch.isspace() and tp.get_charbox(i)[1] > 35:  # the page number at the foot left out
                chars.append((pno, i, ch))
    compact = "".join(c for _, _, c in chars)
    out = []
    for t in texts:
        needle = "".join(t.split())
        at = compact.index(needle)
        span = chars[at:at + len(needle)]
        boxes = []
        for pno in dict.fromkeys(p for p, _, _ in span):
            idx = [i for p, i, _ in span if p == pno]
            tp, height = pages[pno]
            for r in range(tp.count_rects(idx[0], idx[-1] - idx[0] + 1)):
                left, bottom, right, top = tp.get_rect(r)
                boxes.append((pno + 1, left, height - top, right - left, top - bottom))
        out.append(boxes)
    return out


def _coords(boxes: list[tuple[int, float, float, float, float]]) -> str:
    return ";".join(f"{p},{x:.2f},{y:.2f},{w:.2f},{h:.2f}" for p, x, y, w, h in boxes)


def _sentences(text: str) -> list[str]:
    from claimtrace.documents.sentences import split_sentences

    return [text[a:b] for a, b in split_sentences(text)]


def make_pdf_and_tei(tmp: Path) -> tuple[Path, bytes]:
    """A PDF of three pages and the TEI GROBID gives for it: title, abstract, body sentences with coordinates."""
    paras = _paragraphs()
    pdf = write_paper_pdf(tmp / "paper.pdf", title="Reading Through GROBID", abstract=ABSTRACT, paragraphs=paras,
                          abstract_heading=True, pages=3)
    sents = [_sentences(p) for p in paras]
    flat = [s for ss in sents for s in ss]
    boxes = iter(_char_boxes(pdf, [ABSTRACT, *flat]))
    abstract_coords = _coords(next(boxes))
    body = []
    for ss in sents:
        body.append("<p>" + "".join(f'<s coords="{_coords(next(boxes))}">{escape(s)}</s>' for s in ss) + "</p>")
    tei = f"""<?xml version="1.0" encoding="UTF-8"?>
<TEI xml:space="preserve" xmlns="http://www.tei-c.org/ns/1.0">
<teiHeader xml:lang="en"><fileDesc><titleStmt><title level="a" type="main">Reading Through GROBID</title></titleStmt>
<publicationStmt><publisher/><availability status="unknown"><licence/></availability></publicationStmt>
<sourceDesc><biblStruct><analytic><author><persName><forename type="first">A</forename><surname>Author</surname></persName></author></analytic>
<monogr><imprint><date/></imprint></monogr></biblStruct></sourceDesc></fileDesc>
<encodingDesc><appInfo><application version="0.8.2" ident="GROBID" when="2026-12-01T21:00+0000"><label>GROBID</label></application></appInfo></encodingDesc>
<profileDesc><abstract><div xmlns="http://www.tei-c.org/ns/1.0"><p coords="{abstract_coords}">{escape(ABSTRACT)}</p></div></abstract></profileDesc>
</teiHeader>
<text xml:lang="en"><body><div xmlns="http://www.tei-c.org/ns/1.0">{''.join(body)}</div></body><back/></text></TEI>
"""
    return pdf, tei.encode("utf-8")


def test_parse_through_grobid_keeps_pages_and_boxes(grobid: FakeGrobid, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    pdf, grobid.tei = make_pdf_and_tei(tmp_path)
    code, out, err = run_cli(["parse", str(pdf), "--json", "--pdf-reader", "grobid", "--grobid-url", grobid.url],
                             capsys, monkeypatch)
    assert code == 0, err
    doc = Document.model_validate_json(out)
    # what GROBID was sent: the PDF itself as `input`, with sentences and coordinates asked for
    (req,) = grobid.requests
    form = req["form"]
    assert isinstance(form, dict)
    assert req["path"] == "/api/processFulltextDocument"
    assert form["input"] == [pdf.read_bytes()]
    assert {b"p", b"s", b"figure", b"formula", b"biblStruct"} <= set(form["teiCoordinates"])
    assert form["segmentSentences"] == [b"1"]
    # the Document is the PDF's, read from the TEI
    assert doc.id == hashlib.sha256(pdf.read_bytes()).hexdigest()
    assert doc.source.format == "pdf" and doc.source.path == str(pdf)
    assert doc.metadata["pdf_reader"] == "grobid" and doc.metadata["grobid_version"] == "0.8.2"
    assert doc.title == "Reading Through GROBID" and doc.authors == ["A Author"]
    assert doc.abstract_text == ABSTRACT and doc.abstract[0].page == 1
    assert [p.text for p in doc.paragraphs] == _paragraphs()
    # sentences kept apart (GROBID's <s> elements carry no space between them)
    assert doc.paragraphs[0].sentences[1].text.startswith("The ")
    # pages and boxes: the same places claimtrace's own reader finds for the same paragraphs
    assert [p.pages for p in doc.paragraphs if len(p.pages) > 1], "a paragraph runs over the page break"
    own = load_document(pdf)
    own_by_text = {p.text[:60]: p for p in own.paragraphs}
    matched = 0
    for p in doc.paragraphs:
        q = own_by_text.get(p.text[:60])
        if q is None or q.bbox is None:
            continue
        matched += 1
        assert p.bbox is not None and p.page == q.page and p.pages == q.pages
        for a, b in ((p.bbox.x0, q.bbox.x0), (p.bbox.top, q.bbox.top), (p.bbox.x1, q.bbox.x1),
                     (p.bbox.bottom, q.bbox.bottom)):
            assert abs(a - b) < 4.0, (p.id, p.bbox, q.bbox)
    assert matched >= 6
    # and the statistics come out of it
    code, out, err = run_cli(["stats", str(pdf), "--json", "--pdf-reader", "grobid", "--grobid-url", grobid.url],
                             capsys, monkeypatch)
    assert code == 0, err
    found = json.dumps(json.loads(out))
    assert "t(41) = 3.05" in found and "t(28) = 2.20" in found


def test_python_api_and_environment(grobid: FakeGrobid, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf, grobid.tei = make_pdf_and_tei(tmp_path)
    settings = ReaderSettings(pdf_reader="grobid", grobid_url=grobid.url)
    doc = load_document(pdf, settings=settings)
    assert doc.metadata["pdf_reader"] == "grobid"
    with use_reader_settings(settings):
        assert load_document(pdf).metadata["pdf_reader"] == "grobid"
    assert "pdf_reader" not in load_document(pdf).metadata  # claimtrace's own reader again
    monkeypatch.setenv("CLAIMTRACE_PDF_READER", "grobid")
    monkeypatch.setenv("CLAIMTRACE_GROBID_URL", grobid.url)
    assert load_document(pdf).metadata["pdf_reader"] == "grobid"
    assert len(grobid.requests) == 3
    with pytest.raises(ValueError, match="needs the server's URL"):
        ReaderSettings(pdf_reader="grobid")


def test_a_busy_server_is_asked_again(grobid: FakeGrobid, tmp_path: Path) -> None:
    pdf, grobid.tei = make_pdf_and_tei(tmp_path)
    grobid.statuses = [503, 503]
    doc = load_document(pdf, settings=ReaderSettings(pdf_reader="grobid", grobid_url=grobid.url))
    assert len(grobid.requests) == 3 and len(doc.paragraphs) == 8


def test_server_errors_are_one_line(grobid: FakeGrobid, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pdf, grobid.tei = make_pdf_and_tei(tmp_path)
    grobid.statuses = [500]
    code, _out, err = run_cli(["parse", str(pdf), "--pdf-reader", "grobid", "--grobid-url", grobid.url],
                              capsys, monkeypatch)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert str(pdf) in lines[0] and grobid.url in lines[0] and "HTTP 500" in lines[0] and "exception" in lines[0]
    # a server that is not there: a port nobody listens on
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    code, _out, err = run_cli(["stats", str(pdf), "--pdf-reader", "grobid", "--grobid-url", dead], capsys, monkeypatch)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "unreachable" in lines[0] and dead in lines[0], err
    # an answer that is not TEI
    grobid.tei = b"<html><body>not a TEI</body></html>"
    with pytest.raises(GrobidError, match="TEI is unusable"):
        load_document(pdf, settings=ReaderSettings(pdf_reader="grobid", grobid_url=grobid.url))


# ---- real GROBID TEIs of real PDFs (shared data) ---------------------------------------------------

TWINS = [("pdf-twins", "debruine-child"), ("pdf-twins", "incest"), ("s2orc-doc2json", "N18-3011")]


@pytest.mark.parametrize(("folder", "name"), TWINS, ids=[n for _, n in TWINS])
def test_real_grobid_tei_of_a_real_pdf(folder: str, name: str, grobid: FakeGrobid) -> None:
    pdf = shared_path("documents", folder, f"{name}.pdf")
    tei = shared_path("documents", folder, f"{name}.tei.xml")
    grobid.tei = tei.read_bytes()
    doc = load_document(pdf, settings=ReaderSettings(pdf_reader="grobid", grobid_url=grobid.url))
    direct = load_document(tei)
    assert doc.id == hashlib.sha256(pdf.read_bytes()).hexdigest() and doc.source.format == "pdf"
    assert doc.metadata["pdf_reader"] == "grobid"
    # the same reading as the TEI reader gives the recorded TEI
    assert doc.body_text == direct.body_text and doc.abstract_text == direct.abstract_text
    assert doc.title == direct.title and len(doc.paragraphs) > 10
    assert [e.text for e in doc.excluded] == [e.text for e in direct.excluded]


def test_corpus_run_reads_pdfs_through_grobid(grobid: FakeGrobid, tmp_path: Path) -> None:
    """``claimtrace run --pdf-reader grobid``: the worker processes send each PDF to the server."""
    import pyarrow.dataset as ds

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _pdf, grobid.tei = make_pdf_and_tei(corpus)
    out = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_")} | {"PYTHONPATH": str(REPO / "src")}
    res = subprocess.run([sys.executable, "-m", "claimtrace", "run", str(corpus), "--out", str(out), "--steps",
                          "parse,stats", "--workers", "1", "--pdf-reader", "grobid", "--grobid-url", grobid.url,
                          "--json"], capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert res.returncode == 0, res.stderr
    assert len(grobid.requests) == 1
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["reader"]["pdf_reader"] == "grobid"
    assert ds.dataset(out / "statistics").count_rows() >= 2  # t(28) in the abstract, t(41) in the body
