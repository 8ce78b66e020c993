"""Dense retrieval: cosine similarity of embeddings (default the ONNX all-MiniLM-L6-v2, cached on disk)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from claimtrace.retrieval.embeddings import Embedder, get_embedder
from claimtrace.retrieval.units import Unit


@dataclass
class DenseIndex:
    """Unit embeddings (rows L2-normalised)."""

    vectors: np.ndarray


class DenseRetriever:
    """Scores units by the cosine of their embedding with the query's."""

    name = "dense"

    def __init__(self, embedder: Embedder | str | None = None) -> None:
        self.embedder: Embedder = embedder if embedder is not None and not isinstance(embedder, str) \
            else get_embedder(embedder)

    def build(self, units: Sequence[Unit]) -> DenseIndex:
        """Embed the units (through the embedding cache)."""
        return DenseIndex(self.embedder.encode([u.text for u in units]))

    def scores(self, index: DenseIndex, query: str) -> np.ndarray:
        """Cosine similarity of each unit with the query."""
        q = self.embedder.encode([query])[0]
        return np.asarray(index.vectors @ q, dtype=np.float32)
