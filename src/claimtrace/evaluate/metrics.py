"""Precision, recall and F1: the one PRF model and the one rule for empty sets, used by every metric.

``tp`` counts matched predicted items, ``fp`` unmatched predicted items and ``fn`` unmatched gold items;
``tp_gold`` counts matched gold items (it equals ``tp`` for one-to-one matchings and may differ where
several predicted items can match one gold item, as in the hypothesis metric).

    precision = tp / (tp + fp)        recall = tp_gold / (tp_gold + fn)        F1 = 2PR / (P + R)

**Empty sets.** When nothing was predicted and there was nothing to find (``tp = fp = fn = 0``) the
prediction is perfect: P = R = F1 = 1. Otherwise a ratio whose denominator is zero is 0 (nothing
predicted: P = 0; nothing to find but something predicted: R = 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict


class PRF(BaseModel):
    """Micro precision/recall/F1 with the counts they come from (see the module for the rules)."""

    model_config = ConfigDict(extra="forbid")

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int
    tp_gold: int

    @property
    def pred(self) -> int:
        """How many items were predicted."""
        return self.tp + self.fp

    @property
    def gold(self) -> int:
        """How many gold items there were."""
        return self.tp_gold + self.fn

    def rounded(self, digits: int = 4) -> dict[str, float | int]:
        """P/R/F1 rounded, with the counts (for reports and model cards)."""
        return {"precision": round(self.precision, digits), "recall": round(self.recall, digits),
                "f1": round(self.f1, digits), "tp": self.tp, "fp": self.fp, "fn": self.fn}


def prf(tp: int, fp: int, fn: int, tp_gold: int | None = None) -> PRF:
    """Precision, recall and F1 from counts (both sets empty: 1.0; another zero denominator: 0.0)."""
    tg = tp if tp_gold is None else tp_gold
    if tp == fp == fn == 0 and tg == 0:
        return PRF(precision=1.0, recall=1.0, f1=1.0, tp=0, fp=0, fn=0, tp_gold=0)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tg / (tg + fn) if tg + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return PRF(precision=p, recall=r, f1=f, tp=tp, fp=fp, fn=fn, tp_gold=tg)


def prf_from_sizes(matched: int, n_pred: int, n_gold: int) -> PRF:
    """P/R/F1 of a one-to-one matching: ``matched`` of ``n_pred`` predicted and ``n_gold`` gold items."""
    return prf(matched, n_pred - matched, n_gold - matched)


def binary_prf(pred: Sequence[int | bool], gold: Sequence[int | bool]) -> PRF:
    """P/R/F1 of binary predictions against binary labels (the positive class)."""
    tp = sum(1 for p, g in zip(pred, gold, strict=True) if p and g)
    fp = sum(1 for p, g in zip(pred, gold, strict=True) if p and not g)
    fn = sum(1 for p, g in zip(pred, gold, strict=True) if g and not p)
    return prf(tp, fp, fn)


def micro(scores: Iterable[PRF]) -> PRF:
    """Micro-average: sum the counts of several scores, then compute P/R/F1."""
    tp = fp = fn = tg = 0
    for s in scores:
        tp += s.tp
        fp += s.fp
        fn += s.fn
        tg += s.tp_gold
    return prf(tp, fp, fn, tg)
