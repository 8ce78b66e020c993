"""The trained multi-task retriever that ships inside the package (resources/retriever): torch-free loading,
sha256 pinning, both heads, the default `claimtrace retrieve`, fusion, the training-data rules and the
leakage check — on the project's own example papers (no ../shared needed)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from claimtrace.documents import load_document
from claimtrace.errors import ClaimtraceError
from claimtrace.retrieval.base import search
from claimtrace.retrieval.bm25 import BM25Retriever
from claimtrace.retrieval.embeddings import (
    OnnxHeadEmbedder,
    check_sha256,
    read_retriever_manifest,
    sha256_file,
    shipped_retriever_dir,
)
from claimtrace.retrieval.hybrid import HybridRetriever, normalised
from claimtrace.retrieval.pipeline import DEFAULT_RETRIEVER, RetrievalPipeline, get_retriever
from claimtrace.retrieval.training_data import (
    AIM,
    TrainingExample,
    aim_sentence,
    heldout_fingerprint,
    leakage,
)
from claimtrace.retrieval.units import document_units

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "claimtrace"]
TDCS = REPO / "examples" / "PMC1090588.nxml"  # CC BY 2.0 (examples/README.md)
HYDRO = REPO / "examples" / "PMC1821024.nxml"
# an Evidence-Inference style query (intervention vs comparator: outcome) for the tDCS paper; its gold
# evidence sentence is the one reporting the reaction-time comparison with its F tests (p4.s1)
TDCS_QUERY = "anodal or cathodal tDCS vs sham-tDCS: reaction time"
TDCS_GOLD = "p4.s1"


def test_shipped_model_is_pinned_and_sane() -> None:
    d = shipped_retriever_dir()
    meta = read_retriever_manifest(d)
    assert set(meta["files"]) == {"model.onnx", "heads.npz", "tokenizer.json"}
    for name, digest in meta["files"].items():
        assert sha256_file(d / name) == digest
    assert 15e6 < (d / "model.onnx").stat().st_size < 30e6  # int8 MiniLM-L6
    assert set(meta["tasks"]) == set(meta["trained_tasks"]) == {"hypothesis", "evidence"}
    tr = meta["training"]
    assert tr["seed"] and tr["hyper_parameters"]["tau"] and tr["data"]["train_jsonl_sha256"]
    assert tr["leakage"]["ids"] == tr["leakage"]["documents"] == 0
    assert min(v for k, v in tr["agreement"].items() if k.endswith("min_cosine")) >= 0.99


def test_shipped_model_loads_and_embeds_without_torch() -> None:
    code = (
        "import sys, json\n"
        "sys.modules['torch'] = None; sys.modules['sentence_transformers'] = None\n"
        "from claimtrace.retrieval.embeddings import OnnxHeadEmbedder\n"
        "out = {}\n"
        "for task in ('evidence', 'hypothesis'):\n"
        "    e = OnnxHeadEmbedder(task=task)\n"
        "    v = e.encode(['Reaction time was slower under stimulation than under sham (p < 0.05).',\n"
        "                  'Stimulation slowed reaction times compared with placebo.',\n"
        "                  'The pool was heated to 34 degrees.'])\n"
        "    out[task] = {'shape': list(v.shape), 'norms': [float(x) for x in (v * v).sum(1)],\n"
        "                 'near': float(v[0] @ v[1]), 'far': float(v[0] @ v[2]), 'vec': [float(x) for x in v[0][:8]]}\n"
        "print(json.dumps(out))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    for task in ("evidence", "hypothesis"):
        assert out[task]["shape"] == [3, 384]
        assert np.allclose(out[task]["norms"], 1.0, atol=1e-4)
        assert out[task]["near"] > out[task]["far"] + 0.2
    assert not np.allclose(out["evidence"]["vec"], out["hypothesis"]["vec"], atol=1e-3)  # two trained heads


def test_sha256_mismatch_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "retriever"
    shutil.copytree(shipped_retriever_dir(), bad)
    with (bad / "heads.npz").open("ab") as fh:
        fh.write(b"\0")
    with pytest.raises(ClaimtraceError, match=r"sha256 [0-9a-f]{64} does not match the pinned [0-9a-f]{64} \(a damaged or replaced model file\)$"):
        OnnxHeadEmbedder(bad)
    res = subprocess.run([*CLI, "retrieve", str(TDCS), "-q", TDCS_QUERY, "--retriever", f"finetuned:{bad}"],
                         capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 2 and res.stderr.strip().count("\n") == 0 and "sha256" in res.stderr


def test_every_pinned_model_check_words_its_error_the_same(tmp_path: Path) -> None:
    # the MiniLM encoder, the trained retriever and the cross-encoder all check through check_sha256
    f = tmp_path / "model.onnx"
    f.write_bytes(b"not the model")
    check_sha256(f, hashlib.sha256(b"not the model").hexdigest())
    with pytest.raises(ClaimtraceError) as exc:
        check_sha256(f, "0" * 64)
    assert str(exc.value) == (f"{f}: sha256 {hashlib.sha256(b'not the model').hexdigest()} does not match the "
                              f"pinned {'0' * 64} (a damaged or replaced model file)")


def test_first_stage_fusion_ranks_the_gold_sentence_high() -> None:
    units = document_units(load_document(TDCS), "sentence")
    trained = search(get_retriever("trained"), units, TDCS_QUERY, k=len(units))
    # the default's first stage (BM25 + trained, RRF); the cross-encoder on top: tests/test_retrieval_two_stage.py
    default = search(get_retriever("hybrid-trained"), units, TDCS_QUERY, k=len(units))
    rank = {name: next(h.rank for h in hits if h.unit_id == TDCS_GOLD)
            for name, hits in (("trained", trained), ("default", default))}
    assert rank["default"] <= 3 and rank["default"] <= rank["trained"]  # the fusion with BM25 lifts it
    # the top of both rankings is about reaction time under tDCS vs sham, not the methods or the discussion
    assert all("reaction time" in h.text.lower() for h in default[:3])
    assert [h.rank for h in default[:5]] == [1, 2, 3, 4, 5] and default[0].score >= default[4].score


def test_cli_retrieve_uses_the_trained_default() -> None:
    res = subprocess.run([*CLI, "retrieve", str(TDCS), "-q", TDCS_QUERY, "--units", "sentences", "-k", "3", "--json"],
                         capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["retriever"] == "default" and TDCS_GOLD in [h["unit_id"] for h in out["hits"]]
    assert DEFAULT_RETRIEVER == "two-stage"  # hybrid-trained, then the shipped cross-encoder (test_retrieval_two_stage)


def test_the_two_heads_rank_differently() -> None:
    doc = load_document(HYDRO)
    finding = doc.abstract[-1].sentences[0].text
    units = document_units(doc, "sentence")
    hyp = search(get_retriever("trained", task="hypothesis"), units, finding, k=len(units))
    ev = search(get_retriever("trained", task="evidence"), units, finding, k=len(units))
    assert [h.unit_id for h in hyp] != [h.unit_id for h in ev]
    # the aim sentence ("we set out to compare individualised exercises ... pool ...") is near the top
    assert next(h.rank for h in hyp if h.unit_id == "p3.s1") <= 10


def test_fusion_modes() -> None:
    s = np.array([3.0, 1.0, 2.0])
    assert normalised(s, "minmax").tolist() == [1.0, 0.0, 0.5]
    z = normalised(s, "zscore")
    assert abs(z.mean()) < 1e-12 and abs(z.std() - 1) < 1e-12
    assert normalised(np.array([2.0, 2.0]), "minmax").tolist() == [0.0, 0.0]
    units = document_units(load_document(TDCS), "sentence")
    for fusion in ("rrf", "minmax", "zscore"):
        hits = search(HybridRetriever([BM25Retriever(), get_retriever("trained")], fusion=fusion), units, TDCS_QUERY, k=3)
        assert len(hits) == 3 and hits[0].score >= hits[2].score
    with pytest.raises(ValueError):
        HybridRetriever([BM25Retriever()], fusion="max")


def test_pipeline_default_and_unknown_specs() -> None:
    hits = RetrievalPipeline().retrieve(TDCS, TDCS_QUERY, k=2)
    assert len(hits) == 2
    with pytest.raises(ClaimtraceError, match="hybrid-trained"):
        get_retriever("magic")


def test_aim_rule_and_leakage_check_on_real_papers() -> None:
    doc = load_document(HYDRO)
    sid = aim_sentence(doc)
    assert sid == "p3.s1" and AIM.search(doc.unit(sid).text)
    ex = [TrainingExample(id="x", doc=str(HYDRO), task="hypothesis", query=doc.abstract_text[:200], positive=sid,
                          unit="sentence", gold=[doc.unit(sid).text])]
    ids, sents = heldout_fingerprint([HYDRO])
    leak = leakage(ex, ids, sents)
    assert leak["ids"] == [str(HYDRO)] and leak["documents"] == [str(HYDRO)] and leak["texts"]
    ids2, sents2 = heldout_fingerprint([TDCS])
    assert leakage(ex, ids2, sents2) == {"ids": [], "texts": [], "documents": []}


def test_presets_fall_back_to_the_shipped_model_and_pick_the_head(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from claimtrace.extract.config import get_preset
    from claimtrace.extract.context import ContextSelector

    monkeypatch.setenv("CLAIMTRACE_MODELS_DIR", str(tmp_path))  # no user-trained model
    sel = ContextSelector()
    d = shipped_retriever_dir()
    cfg = get_preset("finetuned-rerank")
    assert sel.retriever_for(cfg) == f"finetuned:{d}" and sel.reranker_for(cfg) == f"rescore:hybrid-finetuned:{d}"
    doc = load_document(HYDRO)
    finding = doc.abstract[-1].sentences[0].text
    hyp = sel.paragraphs(doc, finding, cfg, task="hypothesis")
    ev = sel.paragraphs(doc, finding, cfg, task="evidence")
    assert hyp is not None and ev is not None and len(hyp) == len(ev) == 5
    assert hyp != ev  # stage 1 and stage 2 read through different heads
