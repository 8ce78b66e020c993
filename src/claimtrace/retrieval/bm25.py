"""BM25 over units with bm25s, English stop words and Snowball stemming (PyStemmer)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from claimtrace.retrieval.units import Unit


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


#: tokens of the texts seen lately (a paper's sentences are tokenised for its index and again by the rankers, and
#: each finding's text once per query); a text's tokens do not depend on the other texts of the call
_TOKENS: dict[str, tuple[str, ...]] = {}
_TOKENS_MAX = 50_000


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """Lower-cased, stop-word-filtered, stemmed tokens of each text."""
    new = list(dict.fromkeys(t for t in texts if t not in _TOKENS))
    if len(new) > _TOKENS_MAX:  # a call larger than the cache (a large corpus index): tokenise it directly
        return tokenize_uncached(texts)
    fresh = dict(zip(new, map(tuple, tokenize_uncached(new)), strict=True)) if new else {}
    if len(_TOKENS) + len(fresh) > _TOKENS_MAX:
        _TOKENS.clear()
    _TOKENS.update(fresh)
    # ``fresh`` first: another thread may clear the cache meanwhile
    return [list(fresh[t] if t in fresh else cached if (cached := _TOKENS.get(t)) is not None
                 else tokenize_uncached([t])[0]) for t in texts]


def tokenize_uncached(texts: Sequence[str]) -> list[list[str]]:
    """:func:`tokenize` without the cache."""
    import bm25s

    tok = bm25s.tokenize(list(texts), stopwords="en", stemmer=_stemmer(), return_ids=False, show_progress=False)
    return [list(t) for t in tok]


@dataclass
class BM25Index:
    """A bm25s index over one set of units."""

    model: Any
    n: int


class BM25Retriever:
    """Okapi BM25 (bm25s defaults k1=1.5, b=0.75) with stemming."""

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b

    def build(self, units: Sequence[Unit]) -> BM25Index:
        """Tokenise and index the units."""
        import bm25s

        corpus = tokenize([u.text for u in units])
        # a unit made only of stop words would leave an empty document; keep a placeholder token
        corpus = [t if t else ["\u2205"] for t in corpus]
        model = bm25s.BM25(k1=self.k1, b=self.b)
        model.index(corpus, show_progress=False)
        return BM25Index(model=model, n=len(units))

    def scores(self, index: BM25Index, query: str) -> np.ndarray:
        """BM25 score of every unit for the query (zeros when no query term is known)."""
        q = tokenize([query])[0]
        vocab = index.model.vocab_dict
        q = [t for t in q if t in vocab]
        if not q:
            return np.zeros(index.n, dtype=np.float32)
        return np.asarray(index.model.get_scores(q), dtype=np.float32)
