"""Presets are data: one file that the retrieval layer and the extraction layer both read."""

from __future__ import annotations

from claimtrace.extract.config import EMBEDDED_DEFAULT, LLM_DEFAULT, PRESETS, get_preset
from claimtrace.presets import preset_data
from claimtrace.retrieval.selectors import PRESETS as SELECTORS


def test_every_context_takes_k_and_m_from_its_selector() -> None:
    assert set(PRESETS) == set(preset_data()["contexts"])
    for name, ctx in PRESETS.items():
        sel = SELECTORS[ctx.selector]
        assert ctx.mode == sel.preset or (ctx.mode == "rag" and sel.preset in ("topk", "rerank")), name
        if ctx.mode == "rag":
            assert ctx.k == sel.k, name
            assert ctx.candidates == (sel.m if sel.preset == "rerank" else None), name
        else:
            assert ctx.k is None and ctx.candidates is None, name


def test_the_published_settings_come_from_the_file() -> None:
    assert [get_preset(n).k for n in ("rag-k5", "rag-k10", "rag-k20", "rag-rerank")] == [5, 10, 20, 5]
    assert get_preset("finetuned-rerank").candidates == 30 and get_preset("finetuned-rerank").retriever == "finetuned"
    assert get_preset("fulltext-cot").cot and not get_preset("fulltext-zeroshot").cot
    assert SELECTORS["uniform"].preset == "uniform" and SELECTORS["uniform"].n_max == 40
    assert {EMBEDDED_DEFAULT, LLM_DEFAULT} <= set(PRESETS)
