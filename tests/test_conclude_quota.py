"""URCA's per-paper quota, and a study reported across two papers (a real EI article split in two)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from claimtrace.conclude import (
    Question,
    conclude,
    load_papers,
    per_paper_quota,
    pooled_retrieve,
    uniform_retrieve,
)
from claimtrace.conclude.offline import decide
from claimtrace.conclude.pipeline import get_retriever
from claimtrace.documents import Paragraph, load_document
from claimtrace.errors import ClaimtraceError
from conftest import ei_article

# prompt 12833 of the EI validation split (gold: significantly increased)
QUESTION = Question(intervention="chloroquine (CQ) and sulphadoxine-pyrimethamine (SP)",
                    comparator="artemether in fixed combination with lumefantrine",
                    outcome="carring gametocytes within the 4 weeks following treatment")


@pytest.mark.parametrize(("k", "s", "beta", "n_max", "expected"), [
    (10, 1, 2.0, 40, 10),
    (10, 2, 2.0, 40, 6),   # ceil((10 + 2 ln 2) / 2) = ceil(5.69)
    (10, 3, 2.0, 40, 5),   # ceil((10 + 2 ln 3) / 3) = ceil(4.07)
    (10, 8, 2.0, 40, 2),   # ceil((10 + 2 ln 8) / 8) = ceil(1.77)
    (100, 2, 2.0, 40, 20),  # capped by N_max
    (10, 2, 0.0, 40, 5),
])
def test_quota_formula(k: int, s: int, beta: float, n_max: int, expected: int) -> None:
    assert per_paper_quota(k, s, beta, n_max) == expected
    assert expected == math.ceil(min(k + beta * math.log(s), n_max) / s)


def test_quota_needs_a_paper() -> None:
    with pytest.raises(ClaimtraceError):
        per_paper_quota(10, 0)


def _markdown(title: str, pars: list[Paragraph]) -> str:
    out, sec = [f"# {title}", ""], None
    for p in pars:
        if p.section != sec:
            out += [f"## {p.section or 'Text'}", ""]
            sec = p.section
        out += [p.text, ""]
    return "\n".join(out)


@pytest.fixture(scope="module")
def two_papers(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """PMC1087200 split into a design-and-methods paper (long) and a results paper (short)."""
    doc = load_document(ei_article("PMC1087200"))
    results = [p for p in doc.paragraphs if p.section_kind == "results"]
    first = [p for p in doc.paragraphs if p.section_kind in ("introduction", "methods")]
    assert results and first
    d = tmp_path_factory.mktemp("study")
    a, b = d / "design.md", d / "results.md"
    a.write_text(_markdown(f"{doc.title}: design and methods", first), encoding="utf-8")
    b.write_text(_markdown(f"{doc.title}: results", results), encoding="utf-8")
    return [a, b]


def test_per_paper_quotas_keep_the_short_results_paper_in(two_papers: list[Path]) -> None:
    papers = load_papers(two_papers)
    assert len(papers[0].units) > 2 * len(papers[1].units) > 0  # the design paper is much longer
    bm25 = get_retriever("bm25")
    query = QUESTION.query()
    # standard RAG: the long methods paper, full of "gametocyte" sentences, takes every slot
    pooled = pooled_retrieve(papers, query, bm25, k=3)
    assert [p.paper for p in pooled] == [0, 0, 0]
    assert decide(QUESTION, pooled, papers).label == "insufficient evidence"
    # uniform retrieval: k_s = ceil((3 + 2 ln 2) / 2) = 3 units from EACH paper
    uniform, ks = uniform_retrieve(papers, query, bm25, k=3)
    assert ks == 3
    assert [p.paper for p in uniform] == [0, 0, 0, 1, 1, 1]
    d = decide(QUESTION, uniform, papers)
    assert d.label == "significantly increased"
    assert all(r.passage.paper == 1 for r in d.support)


def test_offline_conclusion_across_two_papers(two_papers: list[Path]) -> None:
    res = conclude(QUESTION, [str(p) for p in two_papers], method="offline", k=10, higher_is_better="no")
    assert res.retrieval is not None and res.retrieval.per_paper_quota == 6
    assert res.retrieval.units_per_paper == [6, 6]
    assert res.label == "significantly increased"
    assert res.conclusion == "favours comparator"  # more gametocyte carriage with CQ/SP; lower is better
    q = res.quotes[0]
    assert q.paper_index == 1 and q.paper.endswith("results.md")
    doc = load_document(two_papers[1])
    text = doc.body_text if q.scope == "body" else doc.abstract_text
    assert q.start is not None and text[q.start:q.end] == q.text
    assert "significantly less likely to carry gametocytes" in q.text
