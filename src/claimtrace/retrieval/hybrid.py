"""Hybrid retrieval: weighted reciprocal rank fusion (RRF) of several retrievers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from claimtrace.retrieval.base import Retriever, rank

RRF_K = 60


def rrf_scores(rankings: Sequence[Sequence[int]], n: int, weights: Sequence[float] | None = None,
               k: int = RRF_K) -> np.ndarray:
    """Fused scores: sum over rankings of weight / (k + rank), rank counted from 1; unranked items add 0."""
    w = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(w) != len(rankings):
        raise ValueError(f"{len(rankings)} rankings but {len(w)} weights")
    out = np.zeros(n, dtype=np.float64)
    for ranking, wt in zip(rankings, w, strict=True):
        for r, idx in enumerate(ranking, 1):
            out[idx] += wt / (k + r)
    return out


@dataclass
class HybridIndex:
    """One index per fused retriever."""

    indexes: list[Any]
    n: int


class HybridRetriever:
    """Reciprocal rank fusion of retrievers (default BM25 + dense, equal weights, k = 60)."""

    name = "hybrid"

    def __init__(self, retrievers: Sequence[Retriever], weights: Sequence[float] | None = None, k: int = RRF_K) -> None:
        self.retrievers = list(retrievers)
        self.weights = list(weights) if weights is not None else [1.0] * len(self.retrievers)
        if len(self.weights) != len(self.retrievers):
            raise ValueError("one weight per retriever")
        self.k = k

    def build(self, units: Sequence[Any]) -> HybridIndex:
        """Build each retriever's index."""
        return HybridIndex([r.build(units) for r in self.retrievers], len(units))

    def scores(self, index: HybridIndex, query: str) -> np.ndarray:
        """RRF scores of every unit."""
        rankings = [rank(r.scores(idx, query)) for r, idx in zip(self.retrievers, index.indexes, strict=True)]
        return rrf_scores(rankings, index.n, self.weights, self.k).astype(np.float32)
