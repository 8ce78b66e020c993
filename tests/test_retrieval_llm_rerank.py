"""The RankGPT reranker against the real local LLM server (marked llm), and its repair of bad answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimtrace.documents import load_document
from claimtrace.retrieval import BM25Retriever, LLMListwiseReranker, document_units, search
from conftest import ei_article


def _hits(n: int):  # type: ignore[no-untyped-def]
    doc = load_document(ei_article("PMC1087200"))
    units = document_units(doc, "sentence")
    return search(BM25Retriever(), units, "co-artemether vs CQ/SP: gametocyte carriage after treatment", n)


def test_windows_and_repair_with_a_scripted_answer(tmp_path: Path) -> None:
    """A reranker given an answer function (not our LLM layer): ids repaired, every window logged."""
    answers = iter(["[5] > [5] > [99] > [1]", "no idea", "[2] > [1]"])
    log = tmp_path / "rr.jsonl"
    rr = LLMListwiseReranker(lambda msgs: next(answers), window=10, step=5, log_path=log)
    hits = _hits(20)
    out = rr.rerank("co-artemether vs CQ/SP: gametocyte carriage", hits, k=20)
    assert sorted(h.unit_id for h in out) == sorted(h.unit_id for h in hits)
    assert [h.rank for h in out] == list(range(1, 21))
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert [r["window"] for r in rows] == [[10, 20], [5, 15], [0, 10]]
    assert rows[0]["permutation"][:2] == [4, 0]  # [5] first, duplicate and 99 dropped, then [1]
    # the middle window ("no idea") keeps its order; the top window swaps the first two
    assert out[0].unit_id == hits[1].unit_id and out[1].unit_id == hits[0].unit_id


@pytest.mark.llm
def test_llm_rerank_with_the_local_model(local_llm: str, tmp_path: Path) -> None:
    from claimtrace.llm import load_settings

    settings = load_settings(base_url=local_llm, cache_dir=tmp_path)
    log = tmp_path / "rr.jsonl"
    rr = LLMListwiseReranker(settings=settings, log_path=log)
    hits = _hits(5)
    out = rr.rerank("co-artemether vs CQ/SP: gametocyte carriage after treatment", hits, k=3)
    assert len(out) == 3 and {h.unit_id for h in out} <= {h.unit_id for h in hits}
    rec = json.loads(log.read_text().splitlines()[0])
    assert rec["error"] is None and rec["invocation_ids"] and sorted(rec["permutation"]) == list(range(5))
