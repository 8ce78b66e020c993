"""The two-stage default retriever (first stage BM25 + shipped trained bi-encoder, then the shipped cross-encoder
over the top M): what it reorders, what it leaves, how paragraphs are scored, and that `claimtrace retrieve` uses
it by default. Real components on the project's example paper (no ../shared needed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from claimtrace.documents import load_document
from claimtrace.documents.sentences import split_sentences
from claimtrace.retrieval.base import rank, search
from claimtrace.retrieval.cross_encoder import OnnxCrossEncoder
from claimtrace.retrieval.hybrid import HybridRetriever, rrf_scores
from claimtrace.retrieval.pipeline import DEFAULT_RETRIEVER_BY_TASK, TWO_STAGE, get_retriever
from claimtrace.retrieval.two_stage import TwoStageRetriever, TwoStageSettings
from claimtrace.retrieval.units import document_units

REPO = Path(__file__).resolve().parents[1]
TDCS = REPO / "examples" / "PMC1090588.nxml"  # CC BY 2.0 (examples/README.md)
QUERY = "anodal or cathodal tDCS vs sham-tDCS: reaction time"


@pytest.fixture(scope="module")
def parts() -> tuple[list, HybridRetriever, OnnxCrossEncoder]:  # type: ignore[type-arg]
    doc = load_document(TDCS)
    first = get_retriever("hybrid-trained")
    assert isinstance(first, HybridRetriever)
    return [document_units(doc, "sentence"), document_units(doc, "paragraph")], first, OnnxCrossEncoder()


def test_only_the_top_m_are_reordered_by_the_cross_encoder(parts) -> None:  # type: ignore[no-untyped-def]
    (sents, _), first, ce = parts
    m = 8
    two = TwoStageRetriever(first, ce, TwoStageSettings(m=m))
    base = [h.unit_id for h in search(first, sents, QUERY, k=len(sents))]
    got = [h.unit_id for h in search(two, sents, QUERY, k=len(sents))]
    assert set(got[:m]) == set(base[:m]) and got[m:] == base[m:]  # the rest keeps the first stage's order
    by_id = {u.id: u for u in sents}
    scores = ce.score(QUERY, [by_id[i].text for i in base[:m]])
    assert got[:m] == [base[:m][i] for i in rank(scores)]  # the candidates in the cross-encoder's order
    assert got[:m] != base[:m]  # and it does change the order on this paper


def test_rrf_fusion_with_the_first_stage(parts) -> None:  # type: ignore[no-untyped-def]
    (sents, _), first, ce = parts
    m, w = 10, 2.0
    base = [h.unit_id for h in search(first, sents, QUERY, k=m)]
    by_id = {u.id: u for u in sents}
    ce_rank = rank(ce.score(QUERY, [by_id[i].text for i in base]))
    want = [base[i] for i in rank(rrf_scores([ce_rank, list(range(m))], m, [w, 1.0]))]
    two = TwoStageRetriever(first, ce, TwoStageSettings(m=m, fusion="rrf", ce_weight=w))
    assert [h.unit_id for h in search(two, sents, QUERY, k=m)] == want


def test_a_paragraph_scored_by_its_best_sentence(parts) -> None:  # type: ignore[no-untyped-def]
    (_, paras), first, ce = parts
    m = 5
    two = TwoStageRetriever(first, ce, TwoStageSettings(m=2), TwoStageSettings(m=m, unit_score="maxsent"))
    idx = two.build(paras)
    assert idx.settings.unit_score == "maxsent" and len(idx.sentences) == len(paras)
    s = two.scores(idx, QUERY)
    top = rank(first.scores(idx.first, QUERY), m)
    for i in top:
        best = max(ce.score(QUERY, [paras[i].text[a:b] for a, b in split_sentences(paras[i].text)]))
        # dynamic int8 quantisation scales activations per batch: the same pair scored in another batch moves a little
        assert s[i] == pytest.approx(best, abs=0.05)
    assert set(rank(s, m)) == set(top) and max(np.delete(s, top)) < min(s[top])


def test_sentence_units_use_the_sentence_settings(parts) -> None:  # type: ignore[no-untyped-def]
    (sents, paras), first, ce = parts
    two = TwoStageRetriever(first, ce, TwoStageSettings(m=3), TwoStageSettings(m=7, unit_score="maxsent"))
    assert two.build(sents).settings.m == 3 and two.build(paras).settings.m == 7
    with pytest.raises(ValueError):
        TwoStageRetriever(first, ce, TwoStageSettings(m=0))


def test_the_default_is_two_stage_for_evidence_only() -> None:
    assert DEFAULT_RETRIEVER_BY_TASK == {"evidence": "two-stage", "hypothesis": "hybrid-trained"}
    ev = get_retriever("default")
    assert isinstance(ev, TwoStageRetriever) and (ev.settings, ev.paragraph_settings) == TWO_STAGE
    assert isinstance(get_retriever("default", task="hypothesis"), HybridRetriever)


def test_cli_retrieve_default_is_the_two_stage_ranking() -> None:
    sents = document_units(load_document(TDCS), "sentence")
    want = [h.unit_id for h in search(get_retriever("two-stage"), sents, QUERY, k=3)]
    res = subprocess.run([sys.executable, "-m", "claimtrace", "retrieve", str(TDCS), "-q", QUERY, "--units",
                          "sentences", "-k", "3", "--json"], capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["retriever"] == "default" and [h["unit_id"] for h in out["hits"]] == want
    assert all("reaction time" in h["text"].lower() or "rt" in h["text"].lower().split() for h in out["hits"][:1])
