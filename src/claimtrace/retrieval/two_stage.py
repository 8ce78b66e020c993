"""Two-stage retrieval: a first-stage retriever ranks every unit, then a cross-encoder rescores the top M.

The default ``claimtrace retrieve`` (evidence task) is this retriever: BM25 fused with the shipped trained
bi-encoder (RRF) for candidates, then the shipped cross-encoder (int8 ONNX, no torch) over the top M. A unit
with several sentences (a paragraph) can be scored by the cross-encoder on the whole unit (``unit``), by its best
sentence (``maxsent``) or by both ranks fused (``unit+maxsent``); the cross-encoder's ranking can replace the
first stage's order of the M candidates (``ce``) or be fused with it by reciprocal rank (``rrf``, weight on
the cross-encoder). Units below the top M keep the first stage's order, under every candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from claimtrace.retrieval.base import Retriever, rank
from claimtrace.retrieval.hybrid import rrf_scores
from claimtrace.retrieval.units import Unit

UnitScore = Literal["unit", "maxsent", "unit+maxsent"]


@dataclass(frozen=True)
class TwoStageSettings:
    """How the cross-encoder's scores of the top ``m`` first-stage candidates make the final order."""

    m: int = 20
    fusion: Literal["ce", "rrf"] = "ce"
    ce_weight: float = 1.0  # with ``rrf``: the cross-encoder rank's weight (the first stage's is 1)
    unit_score: UnitScore = "unit"


@dataclass
class TwoStageIndex:
    """The first stage's index, each unit's text and sentences, and the settings for these units."""

    first: Any
    texts: list[str]
    sentences: list[list[str]]
    settings: TwoStageSettings


class TwoStageRetriever:
    """A first-stage retriever, then a cross-encoder over its top M (see the module docstring). ``settings``
    apply to sentence and table-row units; ``paragraph_settings`` (default: the same) to an index holding any
    whole paragraph."""

    name = "two-stage"

    def __init__(self, first: Retriever, cross_encoder: Any, settings: TwoStageSettings,
                 paragraph_settings: TwoStageSettings | None = None) -> None:
        if settings.m < 1 or (paragraph_settings is not None and paragraph_settings.m < 1):
            raise ValueError("m must be at least 1")
        self.first = first
        self.cross_encoder = cross_encoder  # anything with ``score(query, texts) -> np.ndarray``
        self.settings = settings
        self.paragraph_settings = paragraph_settings or settings

    def build(self, units: Sequence[Unit]) -> TwoStageIndex:
        """The first stage's index; each unit's sentences when a unit is scored by its best sentence."""
        paragraphs = any(u.id == u.paragraph_id and u.scope in ("body", "abstract") for u in units)
        settings = self.paragraph_settings if paragraphs else self.settings
        sents: list[list[str]] = []
        if settings.unit_score != "unit":
            from claimtrace.documents.sentences import split_sentences

            sents = [[u.text[a:b] for a, b in split_sentences(u.text)] or [u.text] for u in units]
        return TwoStageIndex(self.first.build(units), [u.text for u in units], sents, settings)

    def _ce_scores(self, index: TwoStageIndex, query: str, cand: list[int]) -> np.ndarray:
        s = index.settings
        if s.unit_score == "unit":
            return np.asarray(self.cross_encoder.score(query, [index.texts[i] for i in cand]), dtype=np.float64)
        flat = [t for i in cand for t in index.sentences[i]]
        sc = np.asarray(self.cross_encoder.score(query, flat), dtype=np.float64)
        best, j = [], 0
        for i in cand:
            n = len(index.sentences[i])
            best.append(float(sc[j : j + n].max()))
            j += n
        if s.unit_score == "maxsent":
            return np.asarray(best)
        whole = np.asarray(self.cross_encoder.score(query, [index.texts[i] for i in cand]), dtype=np.float64)
        return rrf_scores([rank(whole), rank(np.asarray(best))], len(cand))

    def scores(self, index: TwoStageIndex, query: str) -> np.ndarray:
        """Final scores: the top M by the cross-encoder (fused as set), every other unit below them in the first
        stage's order (its scores shifted under the lowest reranked score)."""
        s = index.settings
        first = np.asarray(self.first.scores(index.first, query), dtype=np.float64)
        order = rank(first)
        cand = order[: s.m]
        ce = self._ce_scores(index, query, cand)
        top = ce if s.fusion == "ce" else rrf_scores([rank(ce), list(range(len(cand)))], len(cand), [s.ce_weight, 1.0])
        top = top - 1e-6 * np.arange(len(cand))  # ties keep the first stage's order (survives float32)
        out = np.empty(len(first), dtype=np.float64)
        out[cand] = top
        rest = order[s.m :]
        if rest:  # strictly below every candidate, in the first stage's order
            floor = float(top.min()) - 1.0
            out[rest] = floor - np.arange(1, len(rest) + 1) / (len(rest) + 1)
        return out.astype(np.float32)
