"""rag-rerank and finetuned-rerank: M = 30 retrieved, reranked to k = 5, on a real Evidence Inference article."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from claimtrace.documents import load_document
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.extract.config import get_preset
from claimtrace.extract.context import ContextSelector, default_finetuned_dir
from claimtrace.extract.embedded import EmbeddedExtractor
from claimtrace.extract.pipeline import FindingInput, extract_traces
from conftest import ei_article

QUERY = "etoricoxib 90 mg once daily, naproxen 500 mg twice daily vs placebo: patients discontinued due to lack of efficacy"


def _doc():  # type: ignore[no-untyped-def]
    return load_document(ei_article("PMC115849"))


def test_rag_rerank_reads_five_of_the_hybrid_top30_in_reranker_order() -> None:
    doc = _doc()
    sel = ContextSelector(reranker_spec="dense", evidence_prior=False)  # the reranker's own order (no stage prior)
    got = sel.paragraphs(doc, QUERY, get_preset("rag-rerank"))
    top30 = sel.paragraphs(doc, QUERY, get_preset("rag-k20"))  # hybrid ranking (first 20 of the 30)
    assert got is not None and top30 is not None
    assert len(got) == 5 == len(set(got))
    # the 5 are the 30 candidates' best by MiniLM cosine with the query, in that order
    from claimtrace.retrieval.embeddings import get_embedder
    from claimtrace.retrieval.units import document_units

    units = document_units(doc, "paragraph")
    emb = get_embedder(None)
    vecs = emb.encode([QUERY, *(u.text for u in units)])
    cos = vecs[1:] @ vecs[0]
    cand = {u.id for u in units} if len(units) <= 30 else set(top30)
    order = [units[i].id for i in np.argsort(-cos) if units[i].id in cand]
    assert got == order[:5]
    assert set(got) - set(top30[:5]) or got != top30[:5]  # reranking changed the hybrid top 5


def test_rag_rerank_is_not_rag_k20_for_the_embedded_extractor() -> None:
    doc = _doc()
    ex = EmbeddedExtractor(selector=ContextSelector(reranker_spec="dense"))
    ix = ex.index(doc)
    mask = ex._allowed(ix, QUERY, get_preset("rag-rerank"), None)
    assert len({p for p, m in zip(ix.pid, mask, strict=True) if m}) <= 5
    mask20 = ex._allowed(ix, QUERY, get_preset("rag-k20"), None)
    assert mask.sum() < mask20.sum()


def test_finetuned_rerank_missing_model_dir_is_one_line_error(tmp_path: Path) -> None:
    sel = ContextSelector(finetuned_dir=str(tmp_path / "nope"))
    with pytest.raises(ClaimtraceError) as exc:
        sel.paragraphs(_doc(), QUERY, get_preset("finetuned-rerank"))
    msg = str(exc.value)
    assert "no fine-tuned retriever in" in msg and "nope" in msg and "\n" not in msg
    # rag-rerank's default reranker is the fine-tuned rescoring: the same clear error
    with pytest.raises(ClaimtraceError, match="no fine-tuned retriever"):
        sel.paragraphs(_doc(), QUERY, get_preset("rag-rerank"))


def test_experiment_config_rejects_missing_finetuned_model(tmp_path: Path) -> None:
    from claimtrace.evaluate.experiment import load_config

    def config(preset: str, reranker: str | None = None) -> Path:
        y = tmp_path / "exp.yaml"
        y.write_text(f"dataset: d.jsonl\noutput: out\npresets: [{preset}]\n"
                     "extractor_options:\n  finetuned_model: missing-model\n"
                     + (f"  reranker: {reranker}\n" if reranker else ""), encoding="utf-8")
        return y

    with pytest.raises(InputError, match=r"finetuned-rerank: no fine-tuned retriever in .*missing-model"):
        load_config(config("finetuned-rerank"))
    assert load_config(config("rag-k5")).presets == ["rag-k5"]  # not needed by plain top-k
    # rag-rerank with the default (fine-tuned rescoring) reranker needs it too; with another reranker not
    with pytest.raises(InputError, match=r"rag-rerank: no fine-tuned retriever in .*missing-model"):
        load_config(config("rag-rerank"))
    assert load_config(config("rag-rerank", "dense")).presets == ["rag-rerank"]


def test_finetuned_rerank_uses_the_finetuned_retriever_top30() -> None:
    d = default_finetuned_dir()
    if not (d / "claimtrace_retriever.json").is_file():
        pytest.skip(f"no fine-tuned retriever in {d}")
    pytest.importorskip("sentence_transformers")
    doc = _doc()
    sel = ContextSelector(finetuned_dir=str(d))
    cfg = get_preset("finetuned-rerank")
    assert sel.retriever_for(cfg) == f"finetuned:{d}" and sel.reranker_for(cfg) == f"rescore:hybrid-finetuned:{d}"
    assert sel.reranker_for(get_preset("rag-rerank")) == f"finetuned:{d}"
    got = sel.paragraphs(doc, QUERY, cfg)
    assert got is not None and len(got) == 5
    tr = extract_traces(doc, [FindingInput(text=QUERY)], extractor=EmbeddedExtractor(selector=sel), config=cfg)[0]
    assert tr.evidence is not None and tr.configuration == "finetuned-rerank"
    start = tr.evidence.start
    assert start is not None and any(p.start <= start < p.end for p in doc.paragraphs if p.id in got)


def test_rescore_reranker_ranks_the_candidates_by_another_retriever() -> None:
    from claimtrace.extract.context import RetrieverReranker
    from claimtrace.retrieval.base import search
    from claimtrace.retrieval.bm25 import BM25Retriever
    from claimtrace.retrieval.units import document_units

    units = document_units(_doc(), "paragraph")
    cands = search(BM25Retriever(), units, QUERY, 12)
    got = RetrieverReranker("dense").rerank(QUERY, cands, 4)
    assert len(got) == 4 and {h.unit_id for h in got} <= {h.unit_id for h in cands}
    assert [h.rank for h in got] == [1, 2, 3, 4] and got[0].score >= got[-1].score
    from claimtrace.retrieval.embeddings import get_embedder

    vecs = get_embedder(None).encode([QUERY, *(h.text for h in cands)])
    best = max(range(len(cands)), key=lambda i: float(vecs[1 + i] @ vecs[0]))
    assert got[0].unit_id == cands[best].unit_id
