"""The sentence-embedding interface the metrics use, a memoising wrapper and the default model.

Any object with ``encode(list[str]) -> np.ndarray`` returning one L2-normalised row per text works
(so cosine similarity is a dot product). The default is the project's local MiniLM embedder from
``claimtrace.retrieval.embeddings``; ``model`` may name another one it can load (a local path).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol, runtime_checkable

import numpy as np

from claimtrace.errors import ClaimtraceError


@runtime_checkable
class Embedder(Protocol):
    """Encodes texts into L2-normalised rows."""

    def encode(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised embedding row per text."""
        ...


class CachedEmbedder:
    """Wraps an embedder and remembers every text it has encoded (metrics re-encode gold often)."""

    def __init__(self, inner: Embedder, max_items: int = 200_000) -> None:
        self.inner = inner
        self.max_items = max_items
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embeddings for ``texts``, encoding only those not seen before."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            vecs = np.asarray(self.inner.encode(todo), dtype=np.float32)
            if len(self._cache) + len(todo) > self.max_items:
                self._cache.clear()
            for t, v in zip(todo, vecs, strict=True):
                self._cache[t] = v
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


def normalise_rows(mat: np.ndarray) -> np.ndarray:
    """L2-normalise each row (rows of zeros stay zero)."""
    mat = np.asarray(mat, dtype=np.float32)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    return mat / np.where(norms == 0, 1.0, norms)


@lru_cache(maxsize=4)
def default_embedder(model: str | None = None) -> CachedEmbedder:
    """The default local sentence embedder (MiniLM, ONNX), or ``model`` when given, memoised."""
    try:
        from claimtrace.retrieval import embeddings as emb
    except ModuleNotFoundError as exc:  # pragma: no cover - only before retrieval is installed
        raise ClaimtraceError(f"no sentence embedder available ({exc.msg})") from None
    loader = getattr(emb, "get_embedder", None) or getattr(emb, "load_embedder", None)
    if loader is None:  # pragma: no cover
        raise ClaimtraceError("claimtrace.retrieval.embeddings has no get_embedder()")
    inner = loader(model) if model else loader()
    return CachedEmbedder(inner)
