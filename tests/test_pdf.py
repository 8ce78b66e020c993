"""PDF reader on the real PDFs in ../shared/data: layout, exclusions, statistics, pages, bad input."""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from claimtrace.documents import Document, load_document
from claimtrace.errors import InputError
from conftest import SHARED, shared_path

PDF_DIRS = ["documents/s2orc-doc2json", "documents/grobid", "statistics/statcheck-test-papers"]


def _all_pdfs() -> list[str]:
    out: list[str] = []
    for d in PDF_DIRS:
        folder = SHARED / d
        if folder.exists():
            out.extend(f"{d}/{p.name}" for p in sorted(folder.glob("*.pdf")))
    return out or ["documents/grobid/core-sample1.pdf"]  # skipped by shared_path when absent


@cache
def _doc(rel: str) -> Document:
    return load_document(shared_path(*rel.split("/")))


def _norm(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("rel", _all_pdfs())
def test_every_shared_pdf_parses_with_a_sensible_body(rel: str) -> None:
    doc = _doc(rel)
    assert doc.source.format == "pdf"
    assert doc.paragraphs, rel
    assert doc.body_text == "\n\n".join(p.text for p in doc.paragraphs)
    for p in doc.paragraphs:
        assert doc.body_text[p.start:p.end] == p.text
        assert p.page is not None and p.page in p.pages and p.bbox is not None
        assert p.bbox.x0 < p.bbox.x1 and p.bbox.top < p.bbox.bottom
        for s in p.sentences:
            assert doc.body_text[s.start:s.end] == s.text
    # no bare page numbers or running footers as paragraphs
    assert not any(re.fullmatch(r"\d{1,4}", p.text.strip()) for p in doc.paragraphs)
    assert Document.model_validate_json(doc.model_dump_json()) == doc


def test_two_column_paper_reading_order_and_sections() -> None:
    doc = _doc("documents/s2orc-doc2json/N18-3011.pdf")
    assert doc.title == "Construction of the Literature Graph in Semantic Scholar"
    assert doc.abstract_text.startswith("We describe a deployed scalable system for organizing published "
                                        "scientific literature into a heterogeneous graph")
    first = doc.paragraphs[0]
    assert first.section == "1 Introduction" and first.section_kind == "introduction"
    assert first.text.startswith("The goal of this work is to facilitate algorithmic discovery")
    # a sentence that runs from the bottom of the left column into the right column stays whole
    body = _norm(doc.body_text)
    assert "which can later be used in natural language interfaces (e.g., Iyer et al., 2017) or to improve " \
           "ranking of results in academic search (e.g., Xiong et al., 2017)." in body
    kinds = {p.section_kind for p in doc.paragraphs}
    assert {"introduction", "conclusion"} <= kinds
    # hyphenation at line ends joined: "pro-/vided" and "Sci-/enceParse"
    assert "many papers are provided with incomplete metadata" in body
    assert "we built the ScienceParse system" in body


def test_running_headers_page_numbers_footnotes_and_front_matter_excluded() -> None:
    doc = _doc("documents/s2orc-doc2json/N18-3011.pdf")
    headers = [b.text for b in doc.excluded if b.kind == "header"]
    assert [h for h in headers if h.isdigit()] == [str(n) for n in range(84, 92)]  # pages 84-91
    body = doc.body_text
    assert "Proceedings of NAACL-HLT" not in body
    assert "waleeda@allenai.org" not in body and "Allen Institute for Artificial Intelligence" not in body
    assert not re.search(r"(?m)^(84|85|86|87|88|89|90|91)$", body)
    footnotes = [b.text for b in doc.excluded if b.kind == "footnote"]
    assert any("Due to space constraints" in t for t in footnotes)
    assert "Due to space constraints" not in body


def test_references_cut_off_and_never_in_body() -> None:
    for rel in ["documents/s2orc-doc2json/N18-3011.pdf", "documents/s2orc-doc2json/2020.acl-main.207.pdf",
                "documents/grobid/core-sample1.pdf", "documents/grobid/Wang-paperAVE2008.pdf"]:
        doc = _doc(rel)
        refs = [b for b in doc.excluded if b.kind == "references"]
        assert len(refs) >= 5, rel
        for p in doc.paragraphs:
            # a reference entry: "Surname, I. and ... 2007. Title. In Proceedings ..."
            assert not re.match(r"^(\[\d+\]\s|\d+\.\s+[A-Z][a-z]+,\s[A-Z]\.)", p.text), (rel, p.text[:80])
    n18 = _doc("documents/s2orc-doc2json/N18-3011.pdf")
    assert "Frustratingly easy domain adaptation" not in n18.body_text
    assert any("Frustratingly easy domain adaptation" in b.text for b in n18.excluded)


def test_captions_and_tables_excluded() -> None:
    doc = _doc("documents/s2orc-doc2json/N18-3011.pdf")
    captions = [b.text for b in doc.excluded if b.kind == "caption"]
    assert "Figure 1: Part of the literature graph." in captions
    assert any(c.startswith("Table 1: Results of the ScienceParse system.") for c in captions)
    tables = " ".join(b.text for b in doc.excluded if b.kind == "table")
    assert "bibliography venues 91.7 89.7 90.7" in tables
    assert "91.7 89.7 90.7" not in doc.body_text
    assert "Part of the literature graph." not in doc.body_text
    # the table header row sits beside body text of the other column: not glued into a paragraph
    assert "Field Precision Recall F1" not in doc.body_text


def test_single_column_paper_abstract_and_keywords() -> None:
    doc = _doc("documents/grobid/Wang-paperAVE2008.pdf")
    assert doc.title == "Information Synthesis for Answer Validation"
    assert doc.abstract_text.startswith("This report is about our participation in the Answer Validation Exercise")
    assert doc.abstract_text.rstrip().endswith("does show its effectiveness.")
    assert "Keywords" not in doc.body_text
    assert doc.paragraphs[0].section == "1 Introduction and Related Work"
    assert doc.paragraphs[0].text.startswith("Answer Validation is an important step for Question Answering")


@pytest.mark.parametrize("name", ["Paper1.pdf", "Paper3.pdf", "Paper4_multiplepages.pdf"])
def test_statistics_survive_verbatim(name: str) -> None:
    doc = _doc(f"statistics/statcheck-test-papers/{name}")
    body = doc.body_text
    # the statcheck test papers' results, with minus signs, "<" and "=" intact
    assert "t(37) = -4.93, p <.001" in body
    expected = {"Paper1.pdf": ["Qb(1) = 3.78, p < .05", "Z = 1.54, p = .14", "F(2,56) = 1.203, p < .001"],
                "Paper3.pdf": ["F(2, 56) = 1.203, p < .001", "Q(1) = 6.9, p < .01", "r(46) = .34, p = .03"],
                "Paper4_multiplepages.pdf": ["Z = 1.54, p = .14", "F(2,56) = 1.203, p < .001"]}[name]
    for stat in expected:
        assert stat in body, stat


def test_page_numbers_of_paragraphs() -> None:
    doc = _doc("statistics/statcheck-test-papers/Paper4_multiplepages.pdf")
    by_text = {p.text: p.page for p in doc.paragraphs}
    assert by_text["F(2,56) = 1.203, p < .001"] == 2
    assert any(page == 1 and "t(37) = -4.93" in text for text, page in by_text.items())
    n18 = _doc("documents/s2orc-doc2json/N18-3011.pdf")
    para = next(p for p in n18.paragraphs if p.text.startswith("In this paper, we focus on the problem"))
    assert para.page == 1 and para.pages == [1]
    conclusion = next(p for p in n18.paragraphs if p.section_kind == "conclusion")
    assert conclusion.page == 7
    # a paragraph broken across pages lists both
    assert any(len(p.pages) == 2 and p.pages[1] == p.pages[0] + 1 for p in n18.paragraphs)


def test_partly_scanned_pdf_parses_with_warning() -> None:
    doc = _doc("documents/grobid/two_pages.pdf")
    assert any("page 1" in w and "no text layer" in w for w in doc.warnings)
    assert all(p.page == 2 for p in doc.paragraphs)
    assert "Mann Whitney test (p = 0.05)" in doc.body_text


def test_ligatures_and_dashes_normalised() -> None:
    doc = _doc("documents/s2orc-doc2json/2020.acl-main.207.pdf")
    assert not re.search("[\ufb00-\ufb06\u2212\u2013]", doc.body_text)
    assert "fine-tuning" in doc.body_text


# ---- bad input, through the real CLI -------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, timeout=120)


def _assert_one_line_error(proc: subprocess.CompletedProcess[str], path: Path, reason: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert str(path) in lines[0] and reason in lines[0], lines[0]
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_truncated_pdf(tmp_path: Path) -> None:
    data = shared_path("documents", "s2orc-doc2json", "N18-3011.pdf").read_bytes()
    bad = tmp_path / "truncated.pdf"
    bad.write_bytes(data[: len(data) // 2])
    _assert_one_line_error(_cli("parse", str(bad)), bad, "truncated PDF")


def test_corrupt_pdf(tmp_path: Path) -> None:
    bad = tmp_path / "corrupt.pdf"
    bad.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> garbage \x00\x01\x02\n%%EOF\n")
    _assert_one_line_error(_cli("parse", str(bad)), bad, "corrupt PDF")


def test_encrypted_pdf(tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter(clone_from=str(shared_path("documents", "grobid", "submission_363.pdf")))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="AES-128")
    bad = tmp_path / "encrypted.pdf"
    with bad.open("wb") as fh:
        writer.write(fh)
    _assert_one_line_error(_cli("parse", str(bad)), bad, "encrypted PDF")
    with pytest.raises(InputError, match="encrypted PDF"):
        load_document(bad)


def test_permissions_only_encryption_still_parses(tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter(clone_from=str(shared_path("documents", "grobid", "submission_363.pdf")))
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
    path = tmp_path / "restricted.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    doc = load_document(path)
    assert "Resonance fluorescence has proven to be a useful technique" in doc.body_text


def test_pdf_without_text_layer(tmp_path: Path) -> None:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    for _ in range(2):
        pdf.new_page(612, 792)
    bad = tmp_path / "scanned.pdf"
    pdf.save(str(bad))
    pdf.close()
    _assert_one_line_error(_cli("parse", str(bad)), bad, "no text layer (scanned PDF?)")


def test_cli_parse_pdf_json() -> None:
    path = shared_path("statistics", "statcheck-test-papers", "Paper1.pdf")
    proc = _cli("parse", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = Document.model_validate_json(proc.stdout)
    assert doc.source.format == "pdf" and "Qb(1) = 3.78, p < .05" in doc.body_text


def test_inline_math_display_equations_and_list_items() -> None:
    doc = _doc("documents/s2orc-doc2json/2020.acl-main.207.pdf")
    texts = [_norm(p.text) for p in doc.paragraphs]
    # inline calligraphic P (a math font with a huge declared ascent) stays on its line: one paragraph
    para = next(t for t in texts if t.startswith("In particular, each training instance is a triplet of papers"))
    assert "a query paper P Q, a positive paper P" in para and para.endswith("triplet margin loss function:")
    # display equations go to excluded; the "where ..." text after each starts a paragraph
    assert any(t.startswith("where d is a distance function and m is the loss margin") for t in texts)
    assert any(t.startswith("where vA is the vector corresponding to the pooled output") for t in texts)
    assert any(t.startswith("where Transformer is the Transformer’s forward function") for t in texts)
    equations = [_norm(e.text) for e in doc.excluded if e.kind == "equation"]
    assert any("Transformer(input)" in e and e.endswith("(1)") for e in equations)
    assert not any("= kvA" in t or "Transformer(input)[CLS]" in t for t in texts)
    # numbered appendix items separated by a vertical gap are paragraphs of their own
    assert any(t.startswith("1. Random Zero-mean") and t.endswith("for each document.") for t in texts)
    assert any(t.startswith("7. SGC Since our algorithm") for t in texts)
    # a citation line is prose, not a formula
    assert any("(Le and Mikolov, 2014; Ganesh et al., 2016; Liu et al., 2017" in t for t in texts)


def test_table_cells_above_a_caption_and_formulas_flush_left_excluded() -> None:
    doc = _doc("documents/s2orc-doc2json/N18-3011.pdf")
    body = _norm(doc.body_text)
    assert "Without LM 49.9" not in body and "Avg. of 15 models with LM 55.2" not in body
    assert "use three instances of the entity extraction model with a similar architecture" in body
    assert "LSTM.xk" not in body
    texts = [_norm(p.text) for p in doc.paragraphs]
    assert any(t.startswith("where g k and h k are defined similarly") for t in texts)
