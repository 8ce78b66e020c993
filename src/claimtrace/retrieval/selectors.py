"""Context selectors: named presets that turn a document (or several) into the units an extractor reads.

Presets reproduce the published configurations: ``fulltext`` (every unit), ``topk`` (retrieve k),
``rerank`` (retrieve M, rerank to k), ``oracle`` (given gold unit ids) and ``uniform`` (S sources,
k_s = ceil(min(k + beta * ln S, N_max) / S) units from each).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

from claimtrace.documents.model import StrictModel
from claimtrace.errors import ClaimtraceError
from claimtrace.presets import preset_data
from claimtrace.retrieval.base import Retriever, search
from claimtrace.retrieval.rerank import NoReranker, Reranker
from claimtrace.retrieval.units import Hit, Unit, make_hits

PresetName = Literal["fulltext", "topk", "rerank", "oracle", "uniform"]


class SelectorConfig(StrictModel):
    """A named context-selection preset and its parameters."""

    preset: PresetName = "topk"
    k: int = 5
    m: int = 30
    beta: float = 2.0
    n_max: int = 40


#: the named selector presets (``resources/presets.yaml``, section ``selectors``)
PRESETS: dict[str, SelectorConfig] = {name: SelectorConfig.model_validate(v) for name, v in preset_data()["selectors"].items()}


def uniform_quota(k: int, n_sources: int, beta: float = 2.0, n_max: int = 40) -> int:
    """Units per source for S sources: k_s = ceil(min(k + beta * ln S, N_max) / S)."""
    if n_sources < 1:
        raise ValueError("at least one source")
    if k < 0 or n_max < 0:
        raise ValueError("k and N_max must be non-negative")
    return math.ceil(min(k + beta * math.log(n_sources), n_max) / n_sources)


def select_fulltext(units: Sequence[Unit]) -> list[Hit]:
    """Every unit in document order."""
    return make_hits(list(units), list(range(len(units))), [0.0] * len(units))


def select_topk(retriever: Retriever, units: Sequence[Unit], query: str, k: int, index: Any = None) -> list[Hit]:
    """The retriever's top k."""
    return search(retriever, units, query, k, index)


def select_rerank(retriever: Retriever, reranker: Reranker, units: Sequence[Unit], query: str, m: int, k: int,
                  index: Any = None) -> list[Hit]:
    """Retrieve the top M, then rerank them to k."""
    return reranker.rerank(query, search(retriever, units, query, m, index), k)


def select_oracle(units: Sequence[Unit], gold_ids: Sequence[str]) -> list[Hit]:
    """The gold units (in the order given); unknown ids are an error, not a silent gap."""
    by_id = {u.id: i for i, u in enumerate(units)}
    missing = [g for g in gold_ids if g not in by_id]
    if missing:
        raise ClaimtraceError(f"oracle: unknown unit ids {missing[:5]}")
    order = [by_id[g] for g in dict.fromkeys(gold_ids)]
    return make_hits(list(units), order, [1.0] * len(order))


def select_uniform(retriever: Retriever, sources: Sequence[Sequence[Unit]], query: str, k: int = 10,
                   beta: float = 2.0, n_max: int = 40, reranker: Reranker | None = None,
                   m: int | None = None) -> list[list[Hit]]:
    """The top k_s units of each of S sources (retrieve M and rerank to k_s when a reranker is given)."""
    ks = uniform_quota(k, len(sources), beta, n_max)
    out: list[list[Hit]] = []
    for units in sources:
        if reranker is None or isinstance(reranker, NoReranker):
            out.append(search(retriever, units, query, ks))
        else:
            out.append(select_rerank(retriever, reranker, units, query, max(m or 0, ks), ks))
    return out


def select(config: SelectorConfig | str, units: Sequence[Unit], query: str = "", *, retriever: Retriever | None = None,
           reranker: Reranker | None = None, gold_ids: Sequence[str] | None = None, index: Any = None) -> list[Hit]:
    """Apply a single-source preset (by name or config) to one document's units."""
    cfg = PRESETS[config] if isinstance(config, str) and config in PRESETS else config
    if isinstance(cfg, str):
        raise ClaimtraceError(f"unknown selector preset {config!r} (known: {', '.join(PRESETS)})")
    if cfg.preset == "fulltext":
        return select_fulltext(units)
    if cfg.preset == "oracle":
        if gold_ids is None:
            raise ClaimtraceError("the oracle selector needs gold unit ids")
        return select_oracle(units, gold_ids)
    if retriever is None:
        raise ClaimtraceError(f"the {cfg.preset} selector needs a retriever")
    if cfg.preset == "topk":
        return select_topk(retriever, units, query, cfg.k, index)
    if cfg.preset == "rerank":
        return select_rerank(retriever, reranker or NoReranker(), units, query, cfg.m, cfg.k, index)
    return select_uniform(retriever, [units], query, cfg.k, cfg.beta, cfg.n_max, reranker, cfg.m)[0]
