"""Counts and micro precision/recall/F1 shared by every metric in ``claimtrace.evaluate``."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict


class PRF(BaseModel):
    """Micro precision/recall/F1 with the counts they come from.

    ``tp`` counts matched predicted items, ``fp`` unmatched predicted items and ``fn`` unmatched gold
    items. ``tp_gold`` counts matched gold items; it equals ``tp`` for one-to-one matchings and may
    differ for the hypothesis metric (several predicted sentences can match one gold sentence).
    Precision = tp / (tp + fp); recall = tp_gold / (tp_gold + fn).
    """

    model_config = ConfigDict(extra="forbid")

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    tp_gold: int


def prf(tp: int, fp: int, fn: int, tp_gold: int | None = None) -> PRF:
    """Precision, recall and F1 from counts (0.0 where a denominator is zero)."""
    tg = tp if tp_gold is None else tp_gold
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tg / (tg + fn) if tg + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return PRF(precision=p, recall=r, f1=f, tp=tp, fp=fp, fn=fn, tp_gold=tg)


def micro(scores: Iterable[PRF]) -> PRF:
    """Micro-average: sum the counts of several scores, then compute P/R/F1."""
    tp = fp = fn = tg = 0
    for s in scores:
        tp += s.tp
        fp += s.fp
        fn += s.fn
        tg += s.tp_gold
    return prf(tp, fp, fn, tg)
