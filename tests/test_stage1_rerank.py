"""Stage 1 under retrieval: the hypothesis reranker (relevance fused with hypothesis-likeness) on real papers."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from claimtrace.documents import load_document
from claimtrace.extract.config import get_preset
from claimtrace.extract.context import (
    W_EV_RESULTS,
    W_EV_STAT,
    W_STAGE1_RELEVANCE,
    ContextSelector,
    HypothesisReranker,
    paragraph_evidence_likeness,
    paragraph_hypothesis_likeness,
)
from claimtrace.extract.embedded import EmbeddedExtractor
from claimtrace.extract.hypothesis_classifier import hypothesis_likeness
from claimtrace.retrieval.base import search
from claimtrace.retrieval.pipeline import get_retriever
from claimtrace.retrieval.rerank import NoReranker
from claimtrace.retrieval.units import document_units

REPO = Path(__file__).resolve().parents[1]
TDCS = REPO / "examples" / "PMC1090588.nxml"  # CC BY 2.0 (examples/README.md)
HYDRO = REPO / "examples" / "PMC1821024.nxml"


def _finding(doc, label: str) -> str:  # type: ignore[no-untyped-def]
    sec = next(a for a in doc.abstract if (a.label or "").upper().startswith(label))
    return str(sec.sentences[-1].text)


def _full_pick_paragraph(doc, finding: str) -> str:  # type: ignore[no-untyped-def]
    out = EmbeddedExtractor().hypothesis(doc, finding, get_preset("fulltext-zeroshot"))
    assert out.span is not None
    return next(p.id for p in doc.paragraphs if p.start <= out.span.start < p.end)


def test_likeness_ranks_the_aim_above_results_and_methods() -> None:
    doc = load_document(HYDRO)
    like = hypothesis_likeness(doc)
    assert set(like) == {s.id for s in doc.sentences("body")}
    aim = "p3.s1"  # "In this randomised controlled trial we set out to compare ..." closes the introduction
    assert "we set out to compare" in doc.unit(aim).text
    kinds = {s.id: p.section_kind for p in doc.paragraphs for s in p.sentences}
    others = [v for k, v in like.items() if kinds[k] in ("results", "methods")]
    assert others and like[aim] > max(others)
    par = paragraph_hypothesis_likeness(doc)
    assert par["p3"] == max(like[s.id] for s in doc.paragraphs[2].sentences)
    assert max(par, key=par.__getitem__) == "p3"


def test_stage1_context_holds_the_full_text_choice_where_the_head_alone_misses_it() -> None:
    for path, label in ((TDCS, "RESULTS"), (HYDRO, "RESULTS")):
        doc = load_document(path)
        finding = _finding(doc, label)
        want = _full_pick_paragraph(doc, finding)
        cfg = get_preset("rag-rerank")
        fused = ContextSelector().paragraphs(doc, finding, cfg, task="hypothesis")
        alone = ContextSelector(hypothesis_prior=False).paragraphs(doc, finding, cfg, task="hypothesis")
        assert fused is not None and alone is not None and len(fused) == len(alone) == 5
        assert want in fused and want not in alone, path.name
        # and the extractor, reading only those 5 paragraphs, makes the full-text choice
        full = EmbeddedExtractor().hypothesis(doc, finding, get_preset("fulltext-zeroshot")).span
        rag = EmbeddedExtractor(selector=ContextSelector()).hypothesis(doc, finding, cfg).span
        assert full is not None and rag is not None and (rag.start, rag.end) == (full.start, full.end)


def test_each_stage_has_its_own_prior_and_top_k_keeps_k() -> None:
    doc = load_document(TDCS)
    finding = _finding(doc, "RESULTS")
    for name in ("rag-rerank", "rag-k5"):
        cfg = get_preset(name)
        # stage 2 does not read the hypothesis prior, stage 1 does not read the evidence prior
        assert ContextSelector().paragraphs(doc, finding, cfg) == \
            ContextSelector(hypothesis_prior=False).paragraphs(doc, finding, cfg)
        assert ContextSelector().paragraphs(doc, finding, cfg, task="hypothesis") == \
            ContextSelector(evidence_prior=False).paragraphs(doc, finding, cfg, task="hypothesis")
    # top-k with a prior: the retriever ranks every paragraph, the prior joins, exactly k are kept
    k5 = get_preset("rag-k5")
    for task in ("hypothesis", "evidence"):
        fused = ContextSelector().paragraphs(doc, finding, k5, task=task)
        alone = ContextSelector(hypothesis_prior=False, evidence_prior=False).paragraphs(doc, finding, k5, task=task)
        assert fused is not None and alone is not None and len(fused) == len(alone) == 5
    # stage 2's prior lifts the paragraphs that report a checked test in the Results
    ev = paragraph_evidence_likeness(doc, finding)
    fused = ContextSelector().paragraphs(doc, finding, k5, task="evidence")
    alone = ContextSelector(evidence_prior=False).paragraphs(doc, finding, k5, task="evidence")
    assert fused is not None and alone is not None
    assert sum(ev[p] for p in fused) > sum(ev[p] for p in alone)
    kinds = {p.id: p.section_kind for p in doc.paragraphs}
    assert kinds[max(ev, key=ev.__getitem__)] == "results"


def test_evidence_likeness_is_statistics_results_and_the_findings_study() -> None:
    doc = load_document(HYDRO)
    finding = _finding(doc, "RESULTS")
    ev = paragraph_evidence_likeness(doc, finding)
    assert set(ev) == {p.id for p in doc.paragraphs}
    for p in doc.paragraphs:
        if p.section_kind == "introduction":
            assert ev[p.id] <= W_EV_STAT  # statistics at most: not a Results paragraph
    best = max(ev, key=ev.__getitem__)
    kinds = {p.id: p.section_kind for p in doc.paragraphs}
    assert kinds[best] == "results" and ev[best] >= W_EV_STAT / 2 + W_EV_RESULTS


def test_fused_score_is_relevance_minmax_plus_likeness() -> None:
    doc = load_document(HYDRO)
    finding = _finding(doc, "RESULTS")
    units = document_units(doc, "paragraph")
    hits = search(get_retriever("bm25"), units, finding, 12)
    like = paragraph_hypothesis_likeness(doc)
    got = HypothesisReranker(NoReranker(), like).rerank(finding, hits, 4)
    s = np.array([h.score for h in hits])
    want = W_STAGE1_RELEVANCE * (s - s.min()) / (s.max() - s.min()) + np.array([like[h.unit_id] for h in hits])
    order = np.argsort(-want, kind="stable")[:4]
    assert [h.unit_id for h in got] == [hits[i].unit_id for i in order]
    assert [h.rank for h in got] == [1, 2, 3, 4]
    assert np.allclose([h.score for h in got], want[order])
    # equal scores (no usable relevance): the base order stands in for it
    flat = [h.model_copy(update={"score": 1.0}) for h in hits]
    got2 = HypothesisReranker(NoReranker(), {}).rerank(finding, flat, 3)
    assert [h.unit_id for h in got2] == [h.unit_id for h in hits[:3]]
    assert HypothesisReranker(NoReranker(), like).rerank(finding, [], 3) == []
