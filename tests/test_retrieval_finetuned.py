"""The fine-tuned multi-task retriever: converters on real data, a tiny real training run, save and load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from claimtrace.errors import InputError
from claimtrace.retrieval.training_data import ei_training_data, read_training_data, write_jsonl
from conftest import shared_path


def test_ei_converter_finds_body_positives() -> None:
    split = shared_path("evidence-inference", "validation")
    exs = list(ei_training_data(split, units=("paragraph", "sentence"), limit=6))
    assert exs, "no examples"
    from claimtrace.documents import load_document

    for ex in exs:
        assert ex.task == "evidence" and " vs " in ex.query and ex.gold
        doc = load_document(ex.doc)
        unit = doc.unit(ex.positive)
        # the positive unit holds (the start of) one of the gold body spans
        assert any(g[:40].lower() in " ".join(unit.text.split()).lower() or ex.unit == "sentence" for g in ex.gold)
        assert (ex.unit == "sentence") == ("." in ex.positive)


def test_training_data_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"doc": "x.nxml", "query": "q"}\n')
    with pytest.raises(InputError, match="line 1"):
        read_training_data(bad)


@pytest.mark.torch
def test_tiny_training_run_saves_and_loads(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    from claimtrace.retrieval import RetrievalPipeline
    from claimtrace.training.retriever import TrainConfig, train_retriever

    split = shared_path("evidence-inference", "validation")
    exs = [e for e in ei_training_data(split, units=("sentence",), limit=8)]
    data = tmp_path / "train.jsonl"
    write_jsonl(exs, data)
    out = tmp_path / "model"
    report = train_retriever(read_training_data(data), out, TrainConfig(
        epochs=1, batch_size=4, eval_every=1, patience=1, max_seq_length=48, val_fraction=0.3, max_minutes=5),
        log=lambda msg: None)
    assert report["trained_tasks"] == ["evidence"] and report["steps"] >= 1
    assert report["history"][0]["step"] == 0
    meta = json.loads((out / "claimtrace_retriever.json").read_text())
    assert meta["tau"] == 0.89 and meta["tasks"] == ["hypothesis", "evidence"]
    heads = np.load(out / "heads.npz")
    assert np.allclose(heads["hypothesis.weight"], np.eye(heads["hypothesis.weight"].shape[0]))  # no data: identity
    pipe = RetrievalPipeline(f"finetuned:{out}", unit="sentence", task="evidence")
    hits = pipe.retrieve(exs[0].doc, exs[0].query, k=3)
    assert len(hits) == 3 and hits[0].score >= hits[2].score
