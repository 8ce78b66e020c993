"""Metrics, the one home: precision/recall/F1 (the PRF model and the one rule for empty sets, used by every
set metric) and the ranking metrics (recall@k, hit@k, MRR, nDCG@k) of retrieval.

**PRF.** ``tp`` counts matched predicted items, ``fp`` unmatched predicted items and ``fn`` unmatched gold items;
``tp_gold`` counts matched gold items (it equals ``tp`` for one-to-one matchings and may differ where
several predicted items can match one gold item, as in the hypothesis metric).

    precision = tp / (tp + fp)        recall = tp_gold / (tp_gold + fn)        F1 = 2PR / (P + R)

**Empty sets.** When nothing was predicted and there was nothing to find (``tp = fp = fn = 0``) the
prediction is perfect: P = R = F1 = 1. Otherwise a ratio whose denominator is zero is 0 (nothing
predicted: P = 0; nothing to find but something predicted: R = 0).

**Ranking.** Gold is given as unit ids or as text spans (a span matches a hit by
:func:`claimtrace.textmatch.same_statement`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from claimtrace.textmatch import same_statement


class Counted(BaseModel):
    """Precision, recall and F1 with the ``tp``, ``fp`` and ``fn`` they come from: the fields every P/R/F1
    report shares (:class:`PRF`, the evidence score)."""

    model_config = ConfigDict(extra="forbid")

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int


class PRF(Counted):
    """Micro precision/recall/F1 with the counts they come from (see the module for the rules)."""

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



def relevance(hits: Sequence[dict[str, Any]], gold_ids: Sequence[str] = (), gold_texts: Sequence[str] = ()) -> list[list[int]]:
    """For each hit, the indices of the gold items it matches (unit ids first, then text spans)."""
    gold = list(gold_ids) + list(gold_texts)
    out: list[list[int]] = []
    for h in hits:
        m: list[int] = []
        for j, g in enumerate(gold):
            if j < len(gold_ids):
                uid = str(h.get("unit_id", ""))
                if uid == g:
                    m.append(j)
            elif same_statement(g, str(h.get("text", ""))):
                m.append(j)
        out.append(m)
    return out


def scores_for(hits: Sequence[dict[str, Any]], gold_ids: Sequence[str] = (), gold_texts: Sequence[str] = (),
               ks: Sequence[int] = (1, 3, 5, 10)) -> dict[str, float]:
    """recall@k (share of gold items found in the top k), hit@k, MRR and nDCG@k (binary gains) for one query."""
    n_gold = len(gold_ids) + len(gold_texts)
    if n_gold == 0:
        raise ValueError("no gold for this query")
    rel = relevance(hits, gold_ids, gold_texts)
    res: dict[str, float] = {}
    for k in ks:
        found = {j for m in rel[:k] for j in m}
        res[f"recall@{k}"] = len(found) / n_gold
        res[f"hit@{k}"] = float(bool(found))
        dcg = sum(1.0 / math.log2(r + 2) for r, m in enumerate(rel[:k]) if m)
        idcg = sum(1.0 / math.log2(r + 2) for r in range(min(n_gold, k)))
        res[f"ndcg@{k}"] = dcg / idcg if idcg else 0.0
    first = next((r for r, m in enumerate(rel) if m), None)
    res["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
    return res


def aggregate(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Mean of each metric over queries."""
    if not rows:
        return {}
    keys = rows[0].keys()
    return {k: sum(r[k] for r in rows) / len(rows) for k in keys}
