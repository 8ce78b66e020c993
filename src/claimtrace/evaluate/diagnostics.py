"""Diagnostics: relevant sentence proportion (RSP) of a context, and transition analysis between two
context configurations (Gains / Keeps / Loses / Misses the gold evidence paragraph)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from claimtrace.documents.model import StrictModel
from claimtrace.evaluate.hypothesis import DEFAULT_TAU, sentences_of
from claimtrace.retrieval.embeddings import Embedder

BUCKETS = ("gains", "keeps", "loses", "misses")


def relevant_sentence_proportion(context: str | Sequence[str], reference: str, embedder: Embedder,
                                 tau: float = DEFAULT_TAU) -> float:
    """RSP: the share of the context's sentences whose cosine to ``reference`` (the gold hypothesis)
    is ≥ τ. ``context`` is a text (split into sentences) or a list of already-split sentences."""
    sents = sentences_of(context) if isinstance(context, str) else [s for s in context if s and s.strip()]
    if not sents or not reference or not reference.strip():
        return 0.0
    vecs = embedder.encode([*sents, reference])
    sims = vecs[:-1] @ vecs[-1]
    return float(np.mean(sims >= tau))


class PaperOutcome(StrictModel):
    """One paper (item) under one configuration: did its context hold the gold evidence paragraph,
    and the item's F1."""

    has_gold: bool
    f1: float


class Bucket(StrictModel):
    """One transition bucket: its items and their mean per-paper ΔF1 (B − A)."""

    count: int
    mean_delta_f1: float | None
    ids: list[str]


class TransitionReport(StrictModel):
    """Transitions from configuration A to configuration B."""

    config_a: str
    config_b: str
    n: int
    buckets: dict[str, Bucket]


def bucket_of(a: PaperOutcome, b: PaperOutcome) -> str:
    """gains: B has the gold paragraph and A not; keeps: both; loses: A only; misses: neither."""
    if b.has_gold and not a.has_gold:
        return "gains"
    if a.has_gold and b.has_gold:
        return "keeps"
    if a.has_gold:
        return "loses"
    return "misses"


def transitions(a: Mapping[str, PaperOutcome], b: Mapping[str, PaperOutcome], *, config_a: str = "A",
                config_b: str = "B") -> TransitionReport:
    """Per-paper transition analysis over the items both configurations scored."""
    groups: dict[str, list[tuple[str, float]]] = {k: [] for k in BUCKETS}
    common = [i for i in a if i in b]
    for i in common:
        groups[bucket_of(a[i], b[i])].append((i, b[i].f1 - a[i].f1))
    buckets = {
        k: Bucket(count=len(v), mean_delta_f1=float(np.mean([d for _, d in v])) if v else None,
                  ids=[i for i, _ in v])
        for k, v in groups.items()
    }
    return TransitionReport(config_a=config_a, config_b=config_b, n=len(common), buckets=buckets)
