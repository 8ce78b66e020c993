"""The core pipeline on a small PDF the project made (tests/fixtures/paper.pdf, from make_pdf.py): it runs
without the shared data, so the reader, the statistics engine, retrieval, extraction and the offline
conclusion are tested on every machine."""

from __future__ import annotations

from functools import cache

from claimtrace.conclude.pipeline import conclude
from claimtrace.documents import Document, load_document
from claimtrace.extract.pipeline import FindingInput, extract_traces
from claimtrace.retrieval.base import search
from claimtrace.retrieval.bm25 import BM25Retriever
from claimtrace.retrieval.units import document_units
from claimtrace.stats import analyze_document
from conftest import FIXTURES
from test_documents_xml import check_consistent

PAPER = FIXTURES / "paper.pdf"


@cache
def _doc() -> Document:
    return load_document(PAPER)


def test_pdf_layout_title_abstract_sections_and_pages() -> None:
    doc = _doc()
    check_consistent(doc)
    assert doc.source.format == "pdf"
    assert doc.title == "Sleep restriction and working memory in young adults"
    assert len(doc.abstract) == 1 and doc.abstract[0].text.startswith("We tested whether one night")
    sections = list(dict.fromkeys(p.section for p in doc.paragraphs))
    assert sections == ["1. Introduction", "2. Methods", "3. Results", "4. Discussion"]
    assert len(doc.paragraphs) == 7
    assert not any(p.text == "Abstract" or p.text.startswith("3. Results") for p in doc.paragraphs)


def test_statistics_are_checked_and_the_inconsistent_one_flagged() -> None:
    res = analyze_document(_doc())
    got = {(r.scope, r.text): (r.consistent, r.decision_error) for r in res}
    assert got == {
        ("abstract", "t(38) = 2.70, p = .010"): (True, False),
        ("body", "t(38) = 2.70, p = .010"): (True, False),
        ("body", "F(1, 38) = 5.10, p = .030"): (True, False),
        ("body", "chi2(1) = 4.20, p = .040"): (True, False),
        ("body", "t(38) = 1.20, p = .020"): (False, True),  # t(38) = 1.20 gives p = .24
    }
    flagged = next(r for r in res if r.consistent is False)
    assert flagged.unit_id == "p6.s1" and abs(flagged.computed_p - 0.2376) < 1e-3  # type: ignore[operator]


def test_retrieval_ranks_the_result_paragraph_first() -> None:
    units = document_units(_doc(), "paragraph")
    hits = search(BM25Retriever(), units, "working-memory accuracy after sleep restriction", 3)
    assert hits[0].text.startswith("Accuracy was lower after sleep restriction")


def test_embedded_extraction_finds_the_evidence_with_its_statistics() -> None:
    finding = "Accuracy was lower after restriction, t(38) = 2.70, p = .010, and reaction times were longer."
    tr = extract_traces(_doc(), [FindingInput(text=finding)])[0]  # the default: embedded, no LLM
    assert tr.evidence is not None and "t(38) = 2.70" in tr.evidence.text
    summary = tr.evidence.statistics_summary
    assert summary.results >= 1 and summary.checked >= 1 and summary.inconsistent == 0


def test_offline_conclusion_reads_significance_and_direction() -> None:
    q = {"intervention": "sleep restriction", "comparator": "normal sleep", "outcome": "accuracy"}
    res = conclude(q, [str(PAPER)], higher_is_better=True)
    assert res.label == "significantly decreased" and res.conclusion == "favours comparator"
    assert res.quotes and res.quotes[0].text.startswith("Accuracy was lower after sleep restriction")
