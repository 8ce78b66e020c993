"""A real paper whose first page has a full-width abstract over a two-column body (BMC layout, CC BY 4.0:
tests/fixtures/README.md): the abstract ends where the body starts, and the body keeps its first section."""

from __future__ import annotations

import pytest

from claimtrace.documents import Document, load_document
from conftest import FIXTURES

PDF = FIXTURES / "demarchis2016-p1-2.pdf"


@pytest.fixture(scope="module")
def doc() -> Document:
    return load_document(PDF)


def test_structured_abstract_is_whole_and_holds_no_body_text(doc: Document) -> None:
    assert [a.label for a in doc.abstract] == ["BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"]
    text = doc.abstract_text
    assert 1000 < len(text) < 2000
    assert text.startswith("Functional Electrical Stimulation (FES) is increasingly applied")
    assert text.rstrip().endswith("positioning of the electrode array in neurorehabilitation.")
    # neither the two-column body, nor its footnotes, nor the keywords
    for leak in ("widely used", "Correspondence", "Tübingen", "Keywords"):
        assert leak not in text, leak


def test_two_column_body_on_page_one_reads_column_by_column(doc: Document) -> None:
    first = doc.paragraphs[0]
    assert first.section == "Background" and first.page == 1
    assert first.text.startswith("Functional Electrical Stimulation (FES) is a widely used technique for inducing "
                                 "muscle contraction. FES induces muscle activation")
    # the left column's last line runs into the right column's first: one sentence, not two lines interleaved
    assert "innervating the target muscles. This technique has been extensively studied" in first.text
    assert "[1], tremor [2], multiple sclerosis [3, 4] or spinal cord injury [5]" in first.text
    assert {p.section for p in doc.paragraphs} >= {"Background", "Methods"}
    assert {p.page for p in doc.paragraphs} == {1, 2}


def test_banner_and_authors_are_front_matter(doc: Document) -> None:
    front = [b.text for b in doc.excluded if b.kind == "front matter"]
    assert "Open Access" in front
    assert any(t.startswith("Cristiano De Marchis") for t in front)
    assert not any(p.section and p.section.startswith("Cristiano") for p in doc.paragraphs)
