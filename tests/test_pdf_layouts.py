"""PDF layouts that used to go wrong: an abstract that swallowed the paper, one-page papers.

The PDFs are written by the test (tests/pdf_maker.py, a real text layer through matplotlib), so these run
without ../shared.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimtrace import load_document
from claimtrace.documents.readers.pdf import ABSTRACT_MAX_CHARS
from pdf_maker import body_paragraph, write_paper_pdf

ABSTRACT = ("We test whether the expansion history inferred from the cosmic microwave background agrees with "
            "the one measured by supernovae. Both data sets prefer the same model, and the remaining tension "
            "is below two standard deviations. " + "We describe the likelihood, the priors and the samplers, "
            "and we repeat the analysis with each probe left out in turn to see which one drives the result. " * 5)


@pytest.mark.parametrize("heading", [True, False], ids=["abstract-heading", "run-in-abstract"])
def test_abstract_without_body_headings_does_not_swallow_the_paper(tmp_path: Path, heading: bool) -> None:
    """No section heading anywhere and a full first page (the JCAP failure): a short abstract, a body."""
    paras = [body_paragraph(i) for i in range(1, 13)]
    pdf = write_paper_pdf(tmp_path / "paper.pdf", title="Expansion history from two probes", abstract=ABSTRACT,
                          paragraphs=paras, abstract_heading=heading, pages=4)
    doc = load_document(pdf)
    assert "expansion history inferred" in doc.abstract_text
    assert len(doc.abstract_text) <= ABSTRACT_MAX_CHARS
    assert "Paragraph 1 of the body" not in doc.abstract_text
    assert "Paragraph 12 of the body" in doc.body_text
    pages = {p.page for p in doc.paragraphs}
    assert len(pages) >= 3, pages  # body paragraphs on every page, not only after page 1
    assert len(doc.paragraphs) >= 8


def test_one_page_paper_keeps_its_paragraphs(tmp_path: Path) -> None:
    paras = [body_paragraph(i) for i in range(1, 5)]
    pdf = write_paper_pdf(tmp_path / "one-page.pdf", title="A one-page extended abstract", abstract=ABSTRACT,
                          paragraphs=paras, abstract_heading=True, pages=1)
    doc = load_document(pdf)
    assert {p.page for p in doc.paragraphs} == {1}
    assert "expansion history inferred" in doc.abstract_text
    assert len(doc.abstract_text) < 1500
    found = [i for i in range(1, 5) if f"Paragraph {i} of the body" in doc.body_text]
    assert found == [1, 2, 3, 4]
    assert len(doc.paragraphs) >= 4
