"""Gaps in the evaluation layer found by mutation testing (bench/mutation.py): each test pins a behaviour
that a surviving mutant changed without any test noticing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimtrace.errors import InputError
from claimtrace.evaluate.datasets import load_score_traces
from claimtrace.evaluate.evidence import (
    ComponentCounts,
    EvidenceComponents,
    Interval,
    Relationship,
    compare_components,
    micro_evidence,
)
from claimtrace.evaluate.metrics import binary_prf
from claimtrace.evaluate.parsers import agreement
from conftest import ei_article


def test_binary_prf_refuses_predictions_and_labels_of_different_lengths() -> None:
    # a silently truncated comparison would score only the first items
    with pytest.raises(ValueError):
        binary_prf([1, 0, 1], [1, 0])
    with pytest.raises(ValueError):
        binary_prf([1], [1, 1])
    s = binary_prf([1, 0, 1, 0], [1, 1, 0, 0])
    assert (s.tp, s.fp, s.fn) == (1, 1, 1)


def _comps(variables: list[str], low: float, n: str | None) -> EvidenceComponents:
    return EvidenceComponents(variables=variables, intervals=[Interval(level=95, low=low, high=low + 1)],
                              relationships=[Relationship(direction="increase", significant=True)],
                              test_family=["t"], sample_size=[n] if n else [])


def test_micro_evidence_sums_every_count_of_every_component() -> None:
    a = compare_components(_comps(["anxiety", "sleep"], 1.0, "N=40"), _comps(["anxiety"], 1.0, "N=40"))
    b = compare_components(_comps(["mood"], 2.0, None), _comps(["mood", "appetite"], 3.0, "N=12"))
    total = micro_evidence([a, b])
    for name in ("variables", "intervals", "relationships", "test_family", "sample_size"):
        ca, cb, ct = a.components[name], b.components[name], total.components[name]
        assert ct == ComponentCounts(pred=ca.pred + cb.pred, gold=ca.gold + cb.gold, tp=ca.tp + cb.tp,
                                     fp=ca.fp + cb.fp, fn=ca.fn + cb.fn), name
    v = total.components["variables"]
    assert (v.pred, v.gold, v.tp, v.fp, v.fn) == (3, 3, 2, 1, 1)
    i = total.components["intervals"]
    assert (i.tp, i.fp, i.fn) == (1, 1, 1)
    assert (total.tp, total.fp, total.fn) == (sum(c.tp for c in total.components.values()),
                                              sum(c.fp for c in total.components.values()),
                                              sum(c.fn for c in total.components.values()))


class _Fixed:
    """A component parser that answers from a table (text -> components)."""

    def __init__(self, name: str, table: dict[str, EvidenceComponents]) -> None:
        self.name = name
        self.table = table

    def parse(self, text: str) -> EvidenceComponents:
        return self.table[text]


def test_agreement_component_f1_is_the_dice_of_the_summed_counts() -> None:
    a = _Fixed("a", {"x": _comps(["anxiety", "sleep"], 1.0, "N=40"), "y": _comps(["mood"], 2.0, None)})
    b = _Fixed("b", {"x": _comps(["anxiety"], 1.0, "N=40"), "y": _comps(["mood", "appetite"], 3.0, "N=12")})
    rep = agreement(["x", "y"], a, b)
    # variables: tp 2, fp 1, fn 1 -> 2*2 / (2*2 + 1 + 1)
    assert rep.component_f1["variables"] == pytest.approx(4 / 6)
    # intervals: tp 1, fp 1, fn 1 -> 2 / 4
    assert rep.component_f1["intervals"] == pytest.approx(0.5)
    assert rep.component_f1["relationships"] == pytest.approx(1.0)
    # sample size agrees on x, not on y
    assert rep.binary_agreement["sample_size"] == pytest.approx(0.5)
    assert rep.binary_agreement["test_family"] == pytest.approx(1.0)
    same = agreement(["x", "y"], a, a)
    assert all(v == 1.0 for v in same.component_f1.values()) and same.overall_f1 == 1.0


def test_score_traces_keep_their_ids_and_number_the_rest(tmp_path: Path) -> None:
    rows = [{"claim_id": "c7", "claim2": "A finding.", "pdf_filename": "a.pdf"},
            {"claim2": "Another finding.", "pdf_filename": "b.pdf"},
            {"claim_id": "c7", "claim2": "A third.", "pdf_filename": "c.pdf"}]
    path = tmp_path / "score.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    got = load_score_traces(path, docs_dir=tmp_path)
    assert [g["id"] for g in got] == ["c7", "2", "c7#3"]
    assert got[1]["doc"] == str(tmp_path / "b.pdf")
    path.write_text(json.dumps({"claim_id": "c1", "pdf_filename": "a.pdf"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="row 1"):
        load_score_traces(path)


def test_each_configuration_reads_its_own_context() -> None:
    """Full text reads every paragraph, a top-k configuration k of them, the oracle the gold ones."""
    from claimtrace.documents import load_document
    from claimtrace.evaluate.experiment.config import ExperimentConfig
    from claimtrace.evaluate.experiment.runner import _Runner

    doc = load_document(ei_article("PMC1087200"))
    cfg = ExperimentConfig(dataset="unused.jsonl", output="unused", extractor_options={"retriever": "bm25"})
    query = "gametocyte carriage after co-artemether versus chloroquine plus sulphadoxine-pyrimethamine"
    every = [p.id for p in doc.paragraphs]
    gold = [every[5]]
    assert _Runner(cfg, "fulltext-zeroshot", "embedded").context_paragraphs(doc, query, gold) == every
    top5 = _Runner(cfg, "rag-k5", "embedded").context_paragraphs(doc, query, gold)
    assert len(top5) == 5 and set(top5) < set(every)
    assert _Runner(cfg, "oracle", "embedded").context_paragraphs(doc, query, gold) == gold


def test_jsonl_errors_name_the_file_and_line(tmp_path: Path) -> None:
    """The one JSON-lines reader: batch manifests, ratings, SCORE traces and graph files report alike."""
    from claimtrace.batch import read_jsonl
    from claimtrace.evaluate.hypothesis import read_ratings
    from claimtrace.graph.model import load_graphs

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "doc": "x.pdf"}\n\n{"id": "b", oops}\n', encoding="utf-8")
    for read in (read_jsonl, read_ratings, load_score_traces, load_graphs):
        with pytest.raises(InputError, match=r"line 3: invalid JSON") as err:
            read(bad)
        assert str(bad) in str(err.value)
    arr = tmp_path / "array.jsonl"
    arr.write_text('{"predicted": "a", "gold": "b", "rating": 3}\n[1, 2]\n', encoding="utf-8")
    for read in (read_ratings, load_score_traces):
        with pytest.raises(InputError, match=r"line 2: expected a JSON object"):
            read(arr)


def test_evaluate_retrieval_pred_line_that_is_not_an_object_is_bad_input(tmp_path: Path) -> None:
    import subprocess
    import sys

    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "a", "doc": "x.nxml", "query": "q", "gold_units": ["p1"]}\n', encoding="utf-8")
    pred = tmp_path / "pred.jsonl"
    pred.write_text("[1, 2]\n", encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "claimtrace", "evaluate", "retrieval", str(gold), "--pred", str(pred)],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.strip() == f"error: {pred}: line 1: expected a JSON object"
