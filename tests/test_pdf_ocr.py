"""``--ocr``: a PDF rendered to an image (no text layer) is read back by OCRmyPDF and tesseract.

The scanned PDF is made here: a text PDF from tests/pdf_maker.py, rendered to a 300-dpi image by
pypdfium2, the image wrapped in a PDF by Pillow. Needs the ``[ocr]`` extra and Debian's tesseract-ocr
and ghostscript (``make test`` and ``.ci/run`` install them); skipped where they are absent, except in CI.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from claimtrace.documents import ReaderSettings, load_document
from conftest import REPO, in_ci, shared_path
from pdf_maker import body_paragraph, write_paper_pdf

ABSTRACT = "We tested whether scanning loses statistics. It did not, F(1, 40) = 5.12, p = .029."
STAT = " The two groups differed, t(28) = 2.20, p = .036, d = 0.80."


def _ocr_ready() -> None:
    try:
        import ocrmypdf  # noqa: F401
    except ImportError:
        missing = "the [ocr] extra (ocrmypdf)"
    else:
        progs = [p for p in ("tesseract", "gs") if shutil.which(p) is None]
        if not progs:
            return
        missing = ", ".join(progs)
    if in_ci():
        pytest.fail(f"OCR tests need {missing} in CI (.ci/run installs them)")
    pytest.skip(f"OCR not available here: {missing}")


def render_scan(text_pdf: Path, out: Path, dpi: int = 300) -> Path:
    """A PDF whose pages are images of the text PDF's pages (no text layer)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(text_pdf))
    images = [doc[i].render(scale=dpi / 72).to_pil().convert("L") for i in range(len(doc))]
    images[0].save(out, "PDF", resolution=float(dpi), save_all=True, append_images=images[1:])
    return out


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("scan")
    paras = [body_paragraph(1) + STAT, body_paragraph(2)]
    text_pdf = write_paper_pdf(tmp / "text.pdf", title="A Scanned Test Paper", abstract=ABSTRACT, paragraphs=paras,
                               abstract_heading=True, pages=1)
    return render_scan(text_pdf, tmp / "scan.pdf")


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line in a subprocess (OCR runs child processes of its own)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_")}
    base["PYTHONPATH"] = str(REPO / "src")
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True,
                          env={**base, **(env or {})}, cwd=REPO, timeout=300)


def test_scanned_pdf_without_ocr_is_one_line_naming_ocr(scan: Path) -> None:
    res = cli("parse", str(scan))
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert str(scan) in lines[0] and "no text layer" in lines[0] and "--ocr" in lines[0]


def test_parse_and_stats_with_ocr_read_the_words_and_statistics(scan: Path) -> None:
    _ocr_ready()
    res = cli("parse", str(scan), "--ocr", "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["id"] == hashlib.sha256(scan.read_bytes()).hexdigest()  # the scan's id, not the OCR output's
    assert doc["metadata"]["ocr_pages"] == "1"
    assert any("OCR" in w and "page 1" in w for w in doc["warnings"])
    text = " ".join([doc["title"] or "", doc["abstract_text"], doc["body_text"]])
    words = set(text.split())
    expected = set(f"{ABSTRACT} {body_paragraph(1)}".split())
    assert len(words & expected) >= 0.9 * len(expected), sorted(expected - words)
    assert "Scanned Test Paper" in text
    res = cli("stats", str(scan), "--ocr", "--json")
    assert res.returncode == 0, res.stderr
    results = {r["text"]: r for r in json.loads(res.stdout)["results"]}
    assert abs(results["F(1, 40) = 5.12, p = .029"]["computed_p"] - 0.029) < 0.001, list(results)
    assert "t(28) = 2.20, p = .036, d = 0.80" in results, list(results)


def test_missing_extra_or_programs_are_one_line(scan: Path, tmp_path: Path) -> None:
    # the extra missing: importing ocrmypdf fails (None in sys.modules is how Python marks a module absent)
    code = "import sys; sys.modules['ocrmypdf'] = None; from claimtrace.cli import main; main()"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_")} | {"PYTHONPATH": str(REPO / "src")}
    res = subprocess.run([sys.executable, "-c", code, "parse", str(scan), "--ocr"], capture_output=True, text=True,
                         env=env, cwd=REPO, timeout=120)
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "claimtrace-sci[ocr]" in lines[0] and "tesseract-ocr" in lines[0] and "ghostscript" in lines[0]
    # the programs missing: a PATH without tesseract and gs
    _ocr_ready()
    bare = tmp_path / "bin"
    bare.mkdir()
    res = cli("parse", str(scan), "--ocr", env={"PATH": str(bare)})
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "tesseract" in lines[0] and "apt-get install" in lines[0]


def test_partly_scanned_pdf_ocr_reads_page_one() -> None:
    """two_pages.pdf: page 1 has no text layer. Without --ocr page 2 is read with a warning; with it, page 1 too."""
    pdf = shared_path("documents", "grobid", "two_pages.pdf")
    plain = load_document(pdf)
    assert any("page 1" in w and "no text layer" in w for w in plain.warnings)
    assert all(p.page == 2 for p in plain.paragraphs)
    _ocr_ready()
    doc = load_document(pdf, settings=ReaderSettings(ocr=True))
    assert doc.id == plain.id and doc.metadata["ocr_pages"] == "1"
    assert not any("no text layer" in w for w in doc.warnings)
    page1 = " ".join([*(p.text for p in doc.paragraphs if p.page == 1), *(e.text for e in doc.excluded if e.page == 1)])
    assert "Barcelona2015" in page1 and "September, 16-19" in page1  # the words on the cover image
    assert "Mann Whitney test (p = 0.05)" in doc.body_text  # page 2 as before
    assert [p.text for p in doc.paragraphs if p.page == 2] == [p.text for p in plain.paragraphs]
