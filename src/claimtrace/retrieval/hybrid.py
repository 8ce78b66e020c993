"""Hybrid retrieval: weighted fusion of several retrievers, by reciprocal rank (RRF) or by normalised scores."""

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


FUSIONS = ("rrf", "minmax", "zscore")


def normalised(scores: np.ndarray, how: str) -> np.ndarray:
    """A retriever's scores over one document's units put on a common scale: min-max to [0, 1] or z-scores."""
    x = np.asarray(scores, dtype=np.float64)
    if x.size == 0:
        return x
    if how == "minmax":
        span = float(x.max() - x.min())
        return (x - x.min()) / span if span > 0 else np.zeros_like(x)
    if how == "zscore":
        sd = float(x.std())
        return (x - x.mean()) / sd if sd > 0 else np.zeros_like(x)
    raise ValueError(f"unknown normalisation {how!r}")


@dataclass
class HybridIndex:
    """One index per fused retriever."""

    indexes: list[Any]
    n: int


class HybridRetriever:
    """Fusion of retrievers (default BM25 + dense, equal weights): reciprocal rank fusion (k = 60), or the
    weighted sum of each retriever's min-max or z-score normalised scores (``fusion``)."""

    name = "hybrid"

    def __init__(self, retrievers: Sequence[Retriever], weights: Sequence[float] | None = None, k: int = RRF_K,
                 fusion: str = "rrf") -> None:
        self.retrievers = list(retrievers)
        self.weights = list(weights) if weights is not None else [1.0] * len(self.retrievers)
        if len(self.weights) != len(self.retrievers):
            raise ValueError("one weight per retriever")
        if fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {fusion!r} (expected one of {', '.join(FUSIONS)})")
        self.k = k
        self.fusion = fusion

    def build(self, units: Sequence[Any]) -> HybridIndex:
        """Build each retriever's index."""
        return HybridIndex([r.build(units) for r in self.retrievers], len(units))

    def scores(self, index: HybridIndex, query: str) -> np.ndarray:
        """Fused scores of every unit."""
        if self.fusion != "rrf":
            parts = [w * normalised(r.scores(idx, query), self.fusion)
                     for r, idx, w in zip(self.retrievers, index.indexes, self.weights, strict=True)]
            return np.sum(parts, axis=0).astype(np.float32)
        rankings = [rank(r.scores(idx, query)) for r, idx in zip(self.retrievers, index.indexes, strict=True)]
        return rrf_scores(rankings, index.n, self.weights, self.k).astype(np.float32)
