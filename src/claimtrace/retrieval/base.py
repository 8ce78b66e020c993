"""The retriever interface: build an index over units once, score any number of queries against it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from claimtrace.retrieval.units import Hit, Unit, make_hits


@runtime_checkable
class Retriever(Protocol):
    """Scores every unit of an index for a query (higher is better)."""

    name: str

    def build(self, units: Sequence[Unit]) -> Any:
        """Index the units (one document's, typically)."""
        ...

    def scores(self, index: Any, query: str) -> np.ndarray:
        """One score per indexed unit, in unit order."""
        ...


def rank(scores: np.ndarray, k: int | None = None) -> list[int]:
    """Indices of the top-k scores, best first (ties keep document order)."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    return [int(i) for i in (order if k is None else order[:k])]


def search(retriever: Retriever, units: Sequence[Unit], query: str, k: int = 5, index: Any = None) -> list[Hit]:
    """The top-k hits of a query over units (builds the index unless given)."""
    if not units:
        return []
    idx = retriever.build(units) if index is None else index
    s = retriever.scores(idx, query)
    order = rank(s, k)
    return make_hits(list(units), order, [float(s[i]) for i in order])
